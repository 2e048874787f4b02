/**
 * The use cases of the campaign service: create a draft, read, list, move through the review lifecycle,
 * read the audit and the snapshot of active campaigns. They see neither `req` nor `res`; refusals are
 * problem errors with stable codes that the routes pass on.
 */
import { type Clock, pageOf, type Page, HttpError, problems, type Logger, positiveIntOf, type Principal } from '@pilot/platform';
import { auditItemOf, createEnvelope, transitionRefusalMessage, type Campaign, type CampaignEvent, type CampaignState, type CampaignTransitionAnswer, type InternalAuditItem } from '@pilot/contracts';
import { ConcurrentChangeError, type ChangeFacts, type CurrentPosition, type HistoryPosition } from '@pilot/storage';
import type { CampaignListFilter, CampaignRepository, StoredCampaign } from '../data/campaign-repository';
import {
  applyTransition,
  campaignStateOf,
  canSee,
  decideTransition,
  MAX_CAMPAIGNS_PER_ACCOUNT,
  newDraft,
  TRANSITIONS,
  type CampaignRecord,
  type TransitionName,
} from '../domain/campaign';
import { validateCreative, validatePause, validateRejection, type FieldProblem } from '../domain/validation';

/** The campaign object of API.md, as the contract's schema writes it. */
export type CampaignView = Campaign;

export type SnapshotCampaign = CampaignState & { version: number };

export function viewOf(campaign: StoredCampaign): CampaignView {
  return {
    id: campaign.campaignId,
    name: campaign.name,
    format: campaign.format,
    title: campaign.title,
    text: campaign.text,
    destinationUrl: campaign.destinationUrl,
    buttonText: campaign.buttonText,
    imageUrl: campaign.imageUrl,
    language: campaign.language,
    status: campaign.status,
    replaces: campaign.replaces,
    rejectionReason: campaign.rejectionReason,
    pauseReason: campaign.status === 'paused' ? (campaign.pauseReason ?? null) : null,
    ownerAccountId: campaign.ownerAccountId,
    createdAt: new Date(campaign.createdAt).toISOString(),
    updatedAt: new Date(campaign.updatedAt).toISOString(),
  };
}

const CHANGE_ATTEMPTS = 5;

interface PlannedTransition {
  campaign: StoredCampaign;
  next: CampaignRecord;
  event: CampaignEvent;
  facts: ChangeFacts;
}

/** A transition's answer: the updated campaign and its `propagation` (the contract's schema). */
export type TransitionAnswer = CampaignTransitionAnswer;
/** A create holds its slot claim for milliseconds; a claim without a record after this long was left by a dead process. */
const SLOT_CLAIM_GRACE_MS = 10 * 60 * 1000;

export interface CampaignUseCasesOptions {
  repository: CampaignRepository;
  clock: Clock;
  logger: Logger;
}

export class CampaignUseCases {
  constructor(private readonly options: CampaignUseCasesOptions) {}

  private get repository(): CampaignRepository {
    return this.options.repository;
  }

  async createCampaign(caller: Principal, body: unknown): Promise<CampaignView> {
    const validated = validateCreative(body);
    const errors: FieldProblem[] = validated.ok ? [] : [...validated.errors];
    const replaces = validated.ok ? validated.value.replaces : null;
    if (replaces !== null) {
      const replaced = await this.repository.load(replaces);
      if (!replaced || replaced.ownerAccountId !== caller.accountId) {
        errors.push({ field: 'replaces', code: 'unknown_campaign', message: 'replaces must be the id of one of your campaigns' });
      }
    }
    if (!validated.ok || errors.length > 0) throw problems.validation(errors);

    const at = this.options.clock.now();
    const slot = await this.repository.claimSlot(caller.accountId, MAX_CAMPAIGNS_PER_ACCOUNT, at);
    if (slot === null) {
      throw problems.conflict('campaign_limit', `An account may hold at most ${MAX_CAMPAIGNS_PER_ACCOUNT} campaign records`);
    }
    let campaignId: number | null = null;
    try {
      campaignId = await this.repository.nextId(caller.accountId, at);
      const record = newDraft(campaignId, caller.accountId, validated.value);
      const stored = await this.repository.create(record, {
        at,
        actorAccountId: caller.accountId,
        action: 'created',
        from: null,
        to: 'draft',
        reason: null,
      });
      return viewOf(stored);
    } catch (error) {
      await this.releaseUnusedSlot(caller.accountId, slot, campaignId, error);
      throw error;
    }
  }

  /**
   * A create that failed gives its slot back unless its record was written after all (the failure came
   * after the history insert). When even that cannot be told, the scheduled repair releases it later.
   */
  private async releaseUnusedSlot(accountId: string, slot: number, campaignId: number | null, cause: unknown): Promise<void> {
    try {
      if (campaignId !== null && (await this.repository.load(campaignId))) return;
      await this.repository.releaseSlot(accountId, slot);
    } catch (error) {
      this.options.logger.warn({ err: (error as Error).message, cause: (cause as Error).message, accountId, slot }, 'campaign slot not released; the repair will');
    }
  }

  private async visible(caller: Principal, campaignId: number | null): Promise<StoredCampaign> {
    return this.visibleOf(caller, campaignId === null ? null : await this.repository.load(campaignId));
  }

  /** visible() off the projection alone: a lookup in one shard, without the history's (see transition). */
  private async visibleProjection(caller: Principal, campaignId: number | null): Promise<StoredCampaign> {
    return this.visibleOf(caller, campaignId === null ? null : await this.repository.loadProjection(campaignId));
  }

  private visibleOf(caller: Principal, campaign: StoredCampaign | null): StoredCampaign {
    if (!campaign || !canSee(campaign, caller)) throw problems.notFound('campaign_not_found', 'No such campaign');
    return campaign;
  }

  /** From the projection alone: a change interrupted before its projection shows once the repair rolls it forward. */
  async getCampaign(caller: Principal, campaignId: number | null): Promise<CampaignView> {
    return viewOf(await this.visibleProjection(caller, campaignId));
  }

  /**
   * A page of the list, newest first (ties by id), after `after`. The filter's owner is decided by the
   * route from the caller (an owner's own records, or what an administrator asked for).
   */
  async listCampaigns(filter: CampaignListFilter, after: CurrentPosition | null, limit: number): Promise<Page<CampaignView>> {
    const campaigns = await this.repository.listPage(filter, after, limit + 1);
    return pageOf(campaigns, limit, (campaign) => [new Date(campaign.createdAt), campaign.campaignId], viewOf);
  }

  /** POST /api/workspace/campaigns/:id/submit: the owner sends a draft or rejected campaign for review. */
  submitCampaign(caller: Principal, campaignId: number | null): Promise<TransitionAnswer> {
    return this.transition('submit', caller, campaignId, undefined);
  }

  /** POST /api/workspace/campaigns/:id/approve: an administrator approves a submitted campaign. */
  approveCampaign(caller: Principal, campaignId: number | null): Promise<TransitionAnswer> {
    return this.transition('approve', caller, campaignId, undefined);
  }

  /** POST /api/workspace/campaigns/:id/reject: an administrator sends a submitted campaign back, with `{reason}`. */
  rejectCampaign(caller: Principal, campaignId: number | null, body: unknown): Promise<TransitionAnswer> {
    return this.transition('reject', caller, campaignId, body);
  }

  /** POST /api/workspace/campaigns/:id/activate: an administrator puts an approved or paused campaign on air. */
  activateCampaign(caller: Principal, campaignId: number | null): Promise<TransitionAnswer> {
    return this.transition('activate', caller, campaignId, undefined);
  }

  /** POST /api/workspace/campaigns/:id/pause: the owner or an administrator takes an active campaign off air, with an optional `{reason}`. */
  pauseCampaign(caller: Principal, campaignId: number | null, body: unknown): Promise<TransitionAnswer> {
    return this.transition('pause', caller, campaignId, body);
  }

  /**
   * What submit, approve, reject, activate and pause share: one history entry holding the audit facts and
   * the event.
   *
   * The first attempt decides on the projection alone (one read fewer on a call people wait on). A change
   * from a projection that missed a newer entry collides with that entry, which rolls the projection forward
   * and tries again; a refusal decided on it is decided again on the state rolled forward from history.
   */
  private async transition(name: TransitionName, caller: Principal, campaignId: number | null, body: unknown): Promise<TransitionAnswer> {
    let fromProjection = true;
    for (let attempt = 1; ; attempt += 1) {
      let planned: PlannedTransition;
      try {
        const campaign = fromProjection ? await this.visibleProjection(caller, campaignId) : await this.visible(caller, campaignId);
        planned = this.planTransition(name, caller, campaign, body);
      } catch (error) {
        if (fromProjection && error instanceof HttpError) {
          fromProjection = false;
          continue;
        }
        throw error;
      }
      const { campaign, next, event, facts } = planned;
      try {
        // Allocation and tracking learn of the change from its event: without it on the bus, the change is
        // stored but not yet in effect (a paused campaign may still be selected), and the answer says so.
        const { changed, published } = await this.repository.change(campaign, next, facts, [event]);
        return { ...viewOf(changed), propagation: published ? 'done' : 'pending' };
      } catch (error) {
        // Someone moved it first (or the projection was behind): decide again on what it is now.
        if (error instanceof ConcurrentChangeError && attempt < CHANGE_ATTEMPTS) continue;
        if (error instanceof ConcurrentChangeError) throw problems.conflict('concurrent_change', 'The campaign changed meanwhile; try again');
        throw error;
      }
    }
  }

  /** The record, its next state, event and audit facts of a transition; throws the refusal if there is one. */
  private planTransition(name: TransitionName, caller: Principal, campaign: StoredCampaign, body: unknown): PlannedTransition {
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
    const at = this.options.clock.now();
    const next: CampaignRecord = applyTransition(recordOf(campaign), decision.to, reason);
    // Who moved it, why, and its name travel with the event for the people it concerns (notifications).
    const data = { ...campaignStateOf(next), name: next.name, actorAccountId: caller.accountId, reason };
    const event = createEnvelope(decision.eventType, String(campaign.campaignId), campaign.version + 1, data, at) as CampaignEvent;
    const facts: ChangeFacts = { at, actorAccountId: caller.accountId, action: decision.action, from: decision.from, to: decision.to, reason };
    return { campaign, next, event, facts };
  }

  /**
   * Up to `limit` audit entries of campaigns in the audit's order after `after`: an owner's own records, or
   * all for an administrator.
   */
  async audit(caller: Principal, entity: string | undefined, entityId: string | undefined, after: HistoryPosition | null, limit: number): Promise<{ items: InternalAuditItem[] }> {
    if (entity !== undefined && entity !== 'campaign') return { items: [] };
    const campaignId = entityId === undefined ? null : positiveIntOf(entityId);
    if (entityId !== undefined && campaignId === null) return { items: [] };
    const entries = await this.repository.audit({ ownerAccountId: caller.admin ? null : caller.accountId, campaignId }, after, limit);
    return { items: entries.map((entry) => auditItemOf(entry.entity, entry)) };
  }

  /**
   * Releases slots claimed without a record (a create whose process died in between); at start and on a
   * schedule. Changes left unfinished are the outbox relay's: it rolls their projections forward.
   */
  async repair(): Promise<{ slots: number }> {
    const slots = await this.repository.releaseLeakedSlots(new Date(this.options.clock.now().getTime() - SLOT_CLAIM_GRACE_MS));
    if (slots > 0) this.options.logger.warn({ slots }, 'campaign slots claimed without a record released');
    return { slots };
  }

  /**
   * What a campaign cache rebuilds from: every active campaign with its version, and every paused one,
   * whose version is the floor below which a republished `campaign.activated` is stale.
   * Paused is the only state an active campaign can leave for, so these are all the floors that matter.
   */
  async activeSnapshot(): Promise<{ items: SnapshotCampaign[] }> {
    const active = await this.repository.listInStatus('active');
    const paused = await this.repository.listInStatus('paused');
    return { items: [...active, ...paused].map((campaign) => ({ ...campaignStateOf(recordOf(campaign)), version: campaign.version })) };
  }
}

function recordOf(campaign: StoredCampaign): CampaignRecord {
  return {
    campaignId: campaign.campaignId,
    ownerAccountId: campaign.ownerAccountId,
    status: campaign.status,
    name: campaign.name,
    format: campaign.format,
    title: campaign.title,
    text: campaign.text,
    destinationUrl: campaign.destinationUrl,
    buttonText: campaign.buttonText,
    imageUrl: campaign.imageUrl,
    language: campaign.language,
    replaces: campaign.replaces,
    rejectionReason: campaign.rejectionReason,
    pauseReason: campaign.pauseReason ?? null,
  };
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
