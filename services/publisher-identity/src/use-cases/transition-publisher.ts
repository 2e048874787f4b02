import { problems, type Principal } from '@pilot/platform';
import { createEnvelope, transitionRefusalMessage, type PublisherEvent } from '@pilot/contracts';
import { ConcurrentChangeError } from '@pilot/storage';
import { ACTION_NAMES, TRANSITIONS, nextStatus, type PublisherAction, type PublisherState, type PublisherView } from '../domain/publisher';
import type { PublisherRecord } from '../data/publisher-repository';
import type { IdentityDeps } from './deps';
import { eventData, MAX_ATTEMPTS, publisherView, repairLater, stateOf, syncReadModel, visiblePublisher, withoutKey, withoutPreviousKey } from './publisher-changes';

/** POST /api/workspace/publishers/:id/submit: the owner sends a draft or rejected platform for review. */
export function submitPublisher(deps: IdentityDeps, caller: Principal, id: number): Promise<PublisherView> {
  return transition(deps, caller, id, 'submit');
}

/** POST /api/workspace/publishers/:id/approve: an administrator approves a submitted platform or resumes a paused one. */
export function approvePublisher(deps: IdentityDeps, caller: Principal, id: number): Promise<PublisherView> {
  return transition(deps, caller, id, 'approve');
}

/** POST /api/workspace/publishers/:id/reject: an administrator refuses a submitted, approved or paused platform, with a reason; its key is revoked. */
export function rejectPublisher(deps: IdentityDeps, caller: Principal, id: number, reason: string): Promise<PublisherView> {
  return transition(deps, caller, id, 'reject', reason);
}

/** POST /api/workspace/publishers/:id/pause: an administrator stops an approved platform, with an optional reason. */
export function pausePublisher(deps: IdentityDeps, caller: Principal, id: number, reason: string | null): Promise<PublisherView> {
  return transition(deps, caller, id, 'pause', reason);
}

/**
 * What submit, approve, reject and pause share: 404 for records the caller may not see, 403 for a role it
 * lacks, 409 from a wrong state.
 */
async function transition(deps: IdentityDeps, caller: Principal, id: number, action: PublisherAction, reason: string | null = null): Promise<PublisherView> {
  const rule = TRANSITIONS[action];
  for (let attempt = 1; ; attempt += 1) {
    const record = await visiblePublisher(deps, caller, id);
    if (rule.who === 'owner' && record.ownerAccountId !== caller.accountId) {
      throw problems.forbidden('owner_only', 'Only the owner of this platform may do this');
    }
    if (rule.who === 'admin' && !caller.admin) throw problems.forbidden('admin_only', 'Only an administrator may do this');
    // Ownership is verified independently (SPEC.md): as for campaigns, nobody reviews their own record.
    if ((action === 'approve' || action === 'reject') && record.ownerAccountId === caller.accountId) {
      throw problems.forbidden('own_platform_review', 'An owner cannot review its own platform');
    }
    const to = nextStatus(record.status, action);
    if (!to) throw problems.conflict('invalid_transition', transitionRefusalMessage('platform', record.status, action, rule.to));
    const now = deps.clock.now();
    const next: PublisherState = {
      ...stateOf(record),
      status: to,
      rejectionReason: action === 'reject' ? reason : null,
      pauseReason: action === 'pause' ? reason : null,
      statusChangedAt: now,
    };
    // A rejection revokes the keys for good, the previous one too: after a new approval the owner generates a new one.
    if (to === 'rejected' && record.keyHash) Object.assign(next, withoutKey(record));
    if (to === 'rejected' && record.previousKeyHash) Object.assign(next, withoutPreviousKey({ ...record, revokedKeyHashes: next.revokedKeyHashes }));
    const facts = { actorAccountId: caller.accountId, reason };
    const event = createEnvelope(`publisher.${ACTION_NAMES[action]}` as const, String(id), record.version + 1, { ...eventData(id, next), ...facts }, now);
    const revoking = to === 'paused' || to === 'rejected';
    let changed: PublisherRecord;
    try {
      if (revoking) await deps.readModel.statusAhead(record, to);
      changed = await deps.publishers.change(record, next, { at: now, actorAccountId: caller.accountId, action: ACTION_NAMES[action], from: record.status, to, reason }, [
        event as PublisherEvent,
      ]);
    } catch (error) {
      if (revoking) await syncReadModel(deps, id).catch((syncError: unknown) => repairLater(deps, id, syncError));
      if (error instanceof ConcurrentChangeError && attempt < MAX_ATTEMPTS) continue;
      if (error instanceof ConcurrentChangeError) throw problems.conflict('concurrent_change', 'This platform was changed at the same time; reload it');
      throw error;
    }
    return publisherView(deps, await syncReadModel(deps, id, changed));
  }
}
