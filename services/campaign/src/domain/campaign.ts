/**
 * The campaign and its review lifecycle (SPEC.md "States and transitions", API.md "Workspace: campaigns"),
 * pure: who may move a campaign from which state to which, and what that move records and announces.
 */
import {
  CAMPAIGN_LIMITS,
  graphemeLength,
  graphemePrefix,
  lengthExcess,
  CAMPAIGN_ACTIVATED,
  CAMPAIGN_APPROVED,
  CAMPAIGN_PAUSED,
  CAMPAIGN_REJECTED,
  CAMPAIGN_STATE_FIELDS,
  CAMPAIGN_STATUSES,
  CAMPAIGN_SUBMITTED,
  type CampaignEvent,
  type CampaignState,
  type CampaignStateField,
  type CampaignStatus,
} from '@pilot/contracts';
import type { CreativeInput } from './validation';
import type { Principal } from '@pilot/platform';

export { CAMPAIGN_STATUSES, type CampaignStatus };

export function isCampaignStatus(value: unknown): value is CampaignStatus {
  return typeof value === 'string' && (CAMPAIGN_STATUSES as readonly string[]).includes(value);
}

/** The stored state of a campaign: its immutable creative, its status and who owns it. */
export interface CampaignRecord extends CreativeInput {
  campaignId: number;
  ownerAccountId: string;
  status: CampaignStatus;
  rejectionReason: string | null;
  /** The reason given with the pause that left it paused (absent or null: none). */
  pauseReason?: string | null;
}

/** What the rules read of the signed caller: its account, and whether it administers the network. */
type Caller = Pick<Principal, 'accountId' | 'admin'>;

export const MAX_CAMPAIGNS_PER_ACCOUNT = 100;

export function newDraft(campaignId: number, ownerAccountId: string, input: CreativeInput): CampaignRecord {
  return { campaignId, ownerAccountId, status: 'draft', ...input, rejectionReason: null, pauseReason: null };
}

const COPY_SUFFIX = ' (copy)';

/**
 * The name of a campaign's duplicate: its name followed by " (copy)", the name cut (in characters, and in
 * code units for the encoded cap) so that the whole stays within the name's limit.
 */
export function copyName(name: string): string {
  let kept = graphemePrefix(name, CAMPAIGN_LIMITS.name - graphemeLength(COPY_SUFFIX));
  while (kept !== '' && lengthExcess(`${kept}${COPY_SUFFIX}`, CAMPAIGN_LIMITS.name) !== null) kept = graphemePrefix(kept, graphemeLength(kept) - 1);
  return `${kept.trimEnd()}${COPY_SUFFIX}`;
}

/** A duplicate's creative inputs: the same as the campaign's, its name marked as a copy, replacing nothing. */
export function duplicateInput(campaign: CreativeInput): CreativeInput {
  const { name, format, title, text, destinationUrl, buttonText, imageUrl, language } = campaign;
  return { name: copyName(name), format, title, text, destinationUrl, buttonText, imageUrl, language, replaces: null };
}

/** Owners see their own records; administrators see the whole network; everyone else sees nothing. */
export function canSee(campaign: Pick<CampaignRecord, 'ownerAccountId'>, caller: Caller): boolean {
  return caller.admin || campaign.ownerAccountId === caller.accountId;
}

export type TransitionName = 'submit' | 'approve' | 'reject' | 'activate' | 'pause';
export const TRANSITION_NAMES: readonly TransitionName[] = ['submit', 'approve', 'reject', 'activate', 'pause'];

interface TransitionRule {
  from: readonly CampaignStatus[];
  to: CampaignStatus;
  /** owner: only the owner; review: only an administrator who does not own the campaign; either: owner or administrator. */
  who: 'owner' | 'review' | 'either';
  eventType: CampaignEvent['type'];
  /** The audit action word. */
  action: string;
}

export const TRANSITIONS: Record<TransitionName, TransitionRule> = {
  submit: { from: ['draft', 'rejected'], to: 'submitted', who: 'owner', eventType: CAMPAIGN_SUBMITTED, action: 'submitted' },
  approve: { from: ['submitted'], to: 'approved', who: 'review', eventType: CAMPAIGN_APPROVED, action: 'approved' },
  reject: { from: ['submitted'], to: 'rejected', who: 'review', eventType: CAMPAIGN_REJECTED, action: 'rejected' },
  activate: { from: ['approved', 'paused'], to: 'active', who: 'review', eventType: CAMPAIGN_ACTIVATED, action: 'activated' },
  pause: { from: ['active'], to: 'paused', who: 'either', eventType: CAMPAIGN_PAUSED, action: 'paused' },
};

export type TransitionRefusal = 'not_owner' | 'admin_only' | 'own_campaign_review' | 'invalid_transition';

export type TransitionDecision =
  | { ok: true; from: CampaignStatus; to: CampaignStatus; eventType: CampaignEvent['type']; action: string }
  | { ok: false; refusal: TransitionRefusal };

/**
 * Decides a move for a caller who can see the campaign. Permission is checked before the state, so an
 * account that may never make this move learns 403 whatever the state; a permitted move from the wrong
 * state is `invalid_transition`. An owner never approves, rejects or activates its own campaign, even an
 * administrator's own.
 */
export function decideTransition(name: TransitionName, campaign: Pick<CampaignRecord, 'status' | 'ownerAccountId'>, caller: Caller): TransitionDecision {
  const rule = TRANSITIONS[name];
  const isOwner = campaign.ownerAccountId === caller.accountId;
  if (rule.who === 'owner' && !isOwner) return { ok: false, refusal: 'not_owner' };
  if (rule.who === 'review' && !caller.admin) return { ok: false, refusal: 'admin_only' };
  if (rule.who === 'review' && isOwner) return { ok: false, refusal: 'own_campaign_review' };
  if (rule.who === 'either' && !isOwner && !caller.admin) return { ok: false, refusal: 'not_owner' };
  if (!rule.from.includes(campaign.status)) return { ok: false, refusal: 'invalid_transition' };
  return { ok: true, from: campaign.status, to: rule.to, eventType: rule.eventType, action: rule.action };
}

/**
 * The record after a permitted move. A rejection keeps its reason until the campaign is submitted again;
 * a pause's reason lasts as long as the pause.
 */
export function applyTransition(record: CampaignRecord, to: CampaignStatus, reason: string | null): CampaignRecord {
  return {
    ...record,
    status: to,
    rejectionReason: to === 'rejected' ? reason : to === 'submitted' ? null : record.rejectionReason,
    pauseReason: to === 'paused' ? reason : null,
  };
}

/** The state every campaign.* event carries, so consumers need no call back: the contract's fields of the record. */
export function campaignStateOf(record: CampaignRecord): Pick<CampaignState, CampaignStateField> {
  return Object.fromEntries(CAMPAIGN_STATE_FIELDS.map((field) => [field, record[field]])) as Pick<CampaignState, CampaignStateField>;
}
