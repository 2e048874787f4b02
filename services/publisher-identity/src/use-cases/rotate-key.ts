import { problems, type Principal } from '@pilot/platform';
import { createEnvelope } from '@pilot/contracts';
import { generateApiKey, hashApiKey } from '@pilot/publisher-keys';
import { ConcurrentChangeError } from '@pilot/storage';
import type { PublisherState } from '../domain/publisher';
import type { PublisherRecord } from '../data/publisher-repository';
import type { IdentityDeps } from './deps';
import { admitKeyGeneration, answerOnlyWorkingKey, eventData, MAX_ATTEMPTS, repairLater, stateOf, syncReadModel, visiblePublisher, withoutKey } from './publisher-changes';

/** The owner of an approved platform gets a new key; the previous key stops working before this returns. */
export async function rotateKey(deps: IdentityDeps, caller: Principal, id: number): Promise<{ key: string; keyCreatedAt: string }> {
  for (let attempt = 1; ; attempt += 1) {
    const record = await visiblePublisher(deps, caller, id);
    if (record.ownerAccountId !== caller.accountId) throw problems.forbidden('owner_only', 'Only the owner of this platform may generate its key');
    if (record.status !== 'approved') throw problems.conflict('publisher_not_approved', 'A key can be generated only for an approved platform');
    if (attempt === 1) await admitKeyGeneration(deps, caller.accountId);
    const now = deps.clock.now();
    const key = generateApiKey('live');
    const previous = record.keyHash ?? null;
    const next: PublisherState = {
      ...stateOf(record),
      keyHash: hashApiKey(key),
      keyCreatedAt: now,
      revokedKeyHashes: withoutKey(record).revokedKeyHashes,
    };
    const event = createEnvelope('publisher.key_rotated', String(id), record.version + 1, { ...eventData(id, next), actorAccountId: caller.accountId }, now);
    let changed: PublisherRecord;
    try {
      if (previous) await deps.readModel.revokeKeyAhead(record);
      changed = await deps.publishers.change(
        record,
        next,
        { at: now, actorAccountId: caller.accountId, action: previous ? 'key_rotated' : 'key_generated', from: 'approved', to: 'approved' },
        [event],
      );
    } catch (error) {
      await syncReadModel(deps, id).catch((syncError: unknown) => repairLater(deps, id, syncError));
      if (error instanceof ConcurrentChangeError && attempt < MAX_ATTEMPTS) continue;
      if (error instanceof ConcurrentChangeError) throw problems.conflict('concurrent_change', 'This platform was changed at the same time; try again');
      throw error;
    }
    await answerOnlyWorkingKey(deps, id, changed);
    return { key, keyCreatedAt: now.toISOString() };
  }
}
