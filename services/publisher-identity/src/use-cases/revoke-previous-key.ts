import { problems, type Principal } from '@pilot/platform';
import { ConcurrentChangeError } from '@pilot/storage';
import type { PublisherState } from '../domain/publisher';
import type { IdentityDeps } from './deps';
import { MAX_ATTEMPTS, repairLater, stateOf, syncReadModel, visiblePublisher, withoutPreviousKey } from './publisher-changes';

/**
 * The owner ends the platform's previous live key now (nothing to do when it has none): it stops working
 * in the read model before the change is stored, and so before this returns. The current key is untouched.
 */
export async function revokePreviousKey(deps: IdentityDeps, caller: Principal, id: number): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    const record = await visiblePublisher(deps, caller, id);
    if (record.ownerAccountId !== caller.accountId) throw problems.forbidden('owner_only', 'Only the owner of this platform may end its previous key');
    if (!record.previousKeyHash) return;
    const now = deps.clock.now();
    const next: PublisherState = { ...stateOf(record), ...withoutPreviousKey(record) };
    const facts = { at: now, actorAccountId: caller.accountId, action: 'previous_key_revoked', from: record.status, to: record.status };
    try {
      await deps.readModel.revokePreviousKeyAhead(record);
      const changed = await deps.publishers.change(record, next, facts, []);
      await syncReadModel(deps, id, changed);
      return;
    } catch (error) {
      await syncReadModel(deps, id).catch((syncError: unknown) => repairLater(deps, id, syncError));
      if (error instanceof ConcurrentChangeError && attempt < MAX_ATTEMPTS) continue;
      if (error instanceof ConcurrentChangeError) throw problems.conflict('concurrent_change', 'This platform was changed at the same time; try again');
      throw error;
    }
  }
}
