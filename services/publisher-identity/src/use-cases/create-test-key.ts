import { problems, type Principal } from '@pilot/platform';
import { generateApiKey, hashApiKey } from '@pilot/publisher-keys';
import type { PublisherState } from '../domain/publisher';
import type { IdentityDeps } from './deps';
import { admitKeyGeneration, answerOnlyWorkingKey, changeTestKey, stateOf, visiblePublisher, withoutTestKey } from './publisher-changes';

/**
 * The owner of a platform, whatever its status, gets a new sandbox test key; the previous
 * test key stops working before this returns, the live key is untouched. No event: nothing outside
 * this service reacts to a test key, and the key read model carries it to the readers.
 */
export async function createTestKey(deps: IdentityDeps, caller: Principal, id: number): Promise<{ key: string; keyCreatedAt: string }> {
  for (let attempt = 1; ; attempt += 1) {
    const record = await visiblePublisher(deps, caller, id);
    if (record.ownerAccountId !== caller.accountId) throw problems.forbidden('owner_only', 'Only the owner of this platform may generate its test key');
    if (attempt === 1) await admitKeyGeneration(deps, caller.accountId);
    const now = deps.clock.now();
    const key = generateApiKey('test');
    const previous = record.testKeyHash ?? null;
    const next: PublisherState = { ...stateOf(record), ...withoutTestKey(record), testKeyHash: hashApiKey(key), testKeyCreatedAt: now };
    const facts = { at: now, actorAccountId: caller.accountId, action: previous ? 'test_key_rotated' : 'test_key_generated', from: record.status, to: record.status };
    const changed = await changeTestKey(deps, record, next, facts, previous !== null, attempt);
    if (!changed) continue;
    await answerOnlyWorkingKey(deps, id, changed, 'testKeyHash');
    return { key, keyCreatedAt: now.toISOString() };
  }
}
