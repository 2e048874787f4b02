/** The review lifecycle's moves: submit, approve, reject, activate and pause, through one shared `transition`. */
import { problems, type Principal } from '@pilot/platform';
import { createEnvelope, transitionRefusalMessage, type CampaignEvent, type CampaignTransitionAnswer } from '@pilot/contracts';
import { ConcurrentChangeError, type ChangeFacts } from '@pilot/storage';
import type { StoredCampaign } from '../data/campaign-repository';
import { applyTransition, campaignStateOf, decideTransition, TRANSITIONS, type CampaignRecord, type TransitionName } from '../domain/campaign';
import { validatePause, validateRejection } from '../domain/validation';
import type { CampaignDeps } from './deps';
import { recordOf, viewOf } from './stored-campaign';
import { visibleCampaign } from './visible-campaign';

/** A transition's answer: the updated campaign and its `propagation` (the contract's schema). */
export type TransitionAnswer = CampaignTransitionAnswer;

const CHANGE_ATTEMPTS = 5;

interface PlannedTransition {
  campaign: StoredCampaign;
  next: CampaignRecord;
  event: CampaignEvent;
  facts: ChangeFacts;
}

/** POST /api/workspace/campaigns/:id/submit: the owner sends a draft or rejected campaign for review. */
export function submitCampaign(deps: CampaignDeps, caller: Principal, campaignId: number | null): Promise<TransitionAnswer> {
  return transition(deps, 'submit', caller, campaignId, undefined);
}

/** POST /api/workspace/campaigns/:id/approve: an administrator approves a submitted campaign. */
export function approveCampaign(deps: CampaignDeps, caller: Principal, campaignId: number | null): Promise<TransitionAnswer> {
  return transition(deps, 'approve', caller, campaignId, undefined);
}

/** POST /api/workspace/campaigns/:id/reject: an administrator sends a submitted campaign back, with `{reason}`. */
export function rejectCampaign(deps: CampaignDeps, caller: Principal, campaignId: number | null, body: unknown): Promise<TransitionAnswer> {
  return transition(deps, 'reject', caller, campaignId, body);
}

/** POST /api/workspace/campaigns/:id/activate: an administrator puts an approved or paused campaign on air. */
export function activateCampaign(deps: CampaignDeps, caller: Principal, campaignId: number | null): Promise<TransitionAnswer> {
  return transition(deps, 'activate', caller, campaignId, undefined);
}

/** POST /api/workspace/campaigns/:id/pause: the owner or an administrator takes an active campaign off air, with an optional `{reason}`. */
export function pauseCampaign(deps: CampaignDeps, caller: Principal, campaignId: number | null, body: unknown): Promise<TransitionAnswer> {
  return transition(deps, 'pause', caller, campaignId, body);
}

/**
 * What submit, approve, reject, activate and pause share: one guarded write of the campaign holding the new
 * state, the audit facts and the event. A change that lost to a concurrent one is decided again on the
 * campaign as it is now.
 */
async function transition(deps: CampaignDeps, name: TransitionName, caller: Principal, campaignId: number | null, body: unknown): Promise<TransitionAnswer> {
  for (let attempt = 1; ; attempt += 1) {
    const campaign = await visibleCampaign(deps, caller, campaignId);
    const { next, event, facts } = planTransition(deps, name, caller, campaign, body);
    try {
      // Allocation and tracking learn of the change from its event: without it on the bus, the change is
      // stored but not yet in effect (a paused campaign may still be selected), and the answer says so.
      const { changed, published } = await deps.repository.change(campaign, next, facts, [event]);
      return { ...viewOf(changed), propagation: published ? 'done' : 'pending' };
    } catch (error) {
      // Someone moved it first: decide again on what it is now.
      if (error instanceof ConcurrentChangeError && attempt < CHANGE_ATTEMPTS) continue;
      if (error instanceof ConcurrentChangeError) throw problems.conflict('concurrent_change', 'The campaign changed meanwhile; try again');
      throw error;
    }
  }
}

/** The record, its next state, event and audit facts of a transition; throws the refusal if there is one. */
function planTransition(deps: Pick<CampaignDeps, 'clock'>, name: TransitionName, caller: Principal, campaign: StoredCampaign, body: unknown): PlannedTransition {
  const decision = decideTransition(name, campaign, caller);
  if (!decision.ok && decision.refusal !== 'invalid_transition') throw forbidden(decision.refusal);
  let reason: string | null = null;
  if (name === 'reject') {
    const rejection = validateRejection(body);
    if (!rejection.ok) throw problems.validation(rejection.errors);
    reason = rejection.value.reason;
  }
  if (name === 'pause') {
    const pause = validatePause(body);
    if (!pause.ok) throw problems.validation(pause.errors);
    reason = pause.value.reason;
  }
  if (!decision.ok) {
    throw problems.conflict('invalid_transition', transitionRefusalMessage('campaign', campaign.status, name, TRANSITIONS[name].to));
  }
  const at = deps.clock.now();
  const next: CampaignRecord = applyTransition(recordOf(campaign), decision.to, reason);
  // Who moved it, why, and its name travel with the event for the people it concerns (notifications).
  const data = { ...campaignStateOf(next), name: next.name, actorAccountId: caller.accountId, reason };
  const event = createEnvelope(decision.eventType, String(campaign.campaignId), campaign.version + 1, data, at) as CampaignEvent;
  const facts: ChangeFacts = { at, actorAccountId: caller.accountId, action: decision.action, from: decision.from, to: decision.to, reason };
  return { campaign, next, event, facts };
}

function forbidden(refusal: string) {
  switch (refusal) {
    case 'not_owner':
      return problems.forbidden('not_owner', 'Only the owner of this campaign may do this');
    case 'own_campaign_review':
      return problems.forbidden('own_campaign_review', 'An owner cannot review or activate its own campaign');
    default:
      return problems.forbidden('admin_only', 'Only an administrator may do this');
  }
}
