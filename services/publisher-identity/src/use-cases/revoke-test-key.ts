import { problems, type Principal } from '@pilot/platform';
import type { PublisherState } from '../domain/publisher';
import type { IdentityDeps } from './deps';
import { changeTestKey, stateOf, syncReadModel, visiblePublisher, withoutTestKey } from './publisher-changes';

/** The owner revokes the platform's test key (nothing to do when it has none); the live key is untouched. */
export async function revokeTestKey(deps: IdentityDeps, caller: Principal, id: number): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    const record = await visiblePublisher(deps, caller, id);
    if (record.ownerAccountId !== caller.accountId) throw problems.forbidden('owner_only', 'Only the owner of this platform may revoke its test key');
    if (!record.testKeyHash) return;
    const now = deps.clock.now();
    const next: PublisherState = { ...stateOf(record), ...withoutTestKey(record) };
    const facts = { at: now, actorAccountId: caller.accountId, action: 'test_key_revoked', from: record.status, to: record.status };
    const changed = await changeTestKey(deps, record, next, facts, true, attempt);
    if (!changed) continue;
    await syncReadModel(deps, id, changed);
    return;
  }
}
