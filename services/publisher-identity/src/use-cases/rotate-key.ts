import { problems, type Principal } from '@pilot/platform';
import { createEnvelope } from '@pilot/contracts';
import { generateApiKey, hashApiKey } from '@pilot/publisher-keys';
import { ConcurrentChangeError } from '@pilot/storage';
import type { PublisherState } from '../domain/publisher';
import type { PublisherRecord } from '../data/publisher-repository';
import type { IdentityDeps } from './deps';
import { admitKeyGeneration, answerOnlyWorkingKey, eventData, MAX_ATTEMPTS, repairLater, stateOf, syncReadModel, visiblePublisher, withoutKey, withoutPreviousKey } from './publisher-changes';

export interface IssuedLiveKey {
  key: string;
  keyCreatedAt: string;
  /** When the replaced key stops working; null when it stopped before this answer (or there was none). */
  previousKeyExpiresAt: string | null;
}

/**
 * The owner of an approved platform gets a new key. With `previousKeyGraceSeconds` above 0 the replaced key
 * keeps working that long (a rolling deploy); otherwise it stops before this returns. An older previous
 * key stops at once either way: a platform holds at most one.
 */
export async function rotateKey(deps: IdentityDeps, caller: Principal, id: number, previousKeyGraceSeconds = 0): Promise<IssuedLiveKey> {
  for (let attempt = 1; ; attempt += 1) {
    const record = await visiblePublisher(deps, caller, id);
    if (record.ownerAccountId !== caller.accountId) throw problems.forbidden('owner_only', 'Only the owner of this platform may generate its key');
    if (record.status !== 'approved') throw problems.conflict('publisher_not_approved', 'A key can be generated only for an approved platform');
    if (attempt === 1) await admitKeyGeneration(deps, caller.accountId);
    const now = deps.clock.now();
    const key = generateApiKey('live');
    const previous = record.keyHash ?? null;
    const rolling = previous !== null && previousKeyGraceSeconds > 0;
    const olderEnded = withoutPreviousKey(record);
    const next: PublisherState = {
      ...stateOf(record),
      keyHash: hashApiKey(key),
      keyCreatedAt: now,
      ...(rolling
        ? { revokedKeyHashes: olderEnded.revokedKeyHashes, previousKeyHash: previous, previousKeyExpiresAt: new Date(now.getTime() + previousKeyGraceSeconds * 1000) }
        : { revokedKeyHashes: withoutKey({ ...record, revokedKeyHashes: olderEnded.revokedKeyHashes }).revokedKeyHashes, previousKeyHash: null, previousKeyExpiresAt: null }),
    };
    const event = createEnvelope('publisher.key_rotated', String(id), record.version + 1, { ...eventData(id, next), actorAccountId: caller.accountId }, now);
    const action = !previous ? 'key_generated' : rolling ? 'key_rolled' : 'key_rotated';
    let changed: PublisherRecord;
    try {
      if (previous || record.previousKeyHash) await deps.readModel.revokeKeyAhead(record, rolling);
      changed = await deps.publishers.change(record, next, { at: now, actorAccountId: caller.accountId, action, from: 'approved', to: 'approved' }, [event]);
    } catch (error) {
      await syncReadModel(deps, id).catch((syncError: unknown) => repairLater(deps, id, syncError));
      if (error instanceof ConcurrentChangeError && attempt < MAX_ATTEMPTS) continue;
      if (error instanceof ConcurrentChangeError) throw problems.conflict('concurrent_change', 'This platform was changed at the same time; try again');
      throw error;
    }
    await answerOnlyWorkingKey(deps, id, changed);
    return { key, keyCreatedAt: now.toISOString(), previousKeyExpiresAt: next.previousKeyExpiresAt ? next.previousKeyExpiresAt.toISOString() : null };
  }
}
