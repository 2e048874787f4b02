/**
 * One vocabulary for every place a record's state is shown: the filters, the badges and
 * the audit record say the same words for the same status, and the audit's actions read as sentences.
 */
import type { CampaignStatus, PublisherStatus } from './types';

const STATUS_WORDS: Record<string, string> = {
  draft: 'Draft',
  submitted: 'In review',
  approved: 'Approved',
  active: 'Active',
  paused: 'Paused',
  rejected: 'Rejected',
  scheduled: 'Scheduled',
  live: 'Live',
  ended: 'Ended',
};

/** The word people read for a status; an unknown status is shown as it is. */
export function statusWord(status: string): string {
  return STATUS_WORDS[status] ?? status;
}

/**
 * Every status of the contract's union, in the order the lists show them. The list is written out (the
 * browser bundle takes no code of the contracts package), and the compiler refuses one that misses a status.
 */
function everyStatusOf<U extends string>() {
  return <T extends readonly U[]>(list: T & ([U] extends [T[number]] ? unknown : never)): T => list;
}

export const CAMPAIGN_STATUSES = everyStatusOf<CampaignStatus>()(['draft', 'submitted', 'approved', 'active', 'paused', 'rejected'] as const);
export const PUBLISHER_STATUSES = everyStatusOf<PublisherStatus>()(['draft', 'submitted', 'approved', 'paused', 'rejected'] as const);

const ACTION_WORDS: Record<string, string> = {
  created: 'Created',
  duplicated: 'Created as a duplicate',
  submitted: 'Submitted for review',
  approved: 'Approved',
  rejected: 'Rejected',
  activated: 'Activated',
  paused: 'Paused',
  key_generated: 'Server key generated',
  key_rotated: 'Server key rotated',
  key_rolled: 'Server key rotated, the previous one kept working for a while',
  previous_key_revoked: 'Previous server key ended',
  test_key_generated: 'Test key generated',
  test_key_rotated: 'Test key replaced',
  test_key_revoked: 'Test key revoked',
  set: 'Placement set',
  signed_in: 'Signed in',
  signed_out: 'Signed out',
};

/** The audit's actions, for its filter. */
export const AUDIT_ACTIONS = Object.keys(ACTION_WORDS);

/** An audit entry's action in words ("key_rotated" → "Server key rotated"). */
export function actionWords(action: string): string {
  return ACTION_WORDS[action] ?? action.replace(/_/g, ' ');
}

const ENTITY_WORDS: Record<string, string> = { campaign: 'Campaign', publisher: 'Platform', placement: 'Placement', account: 'Account' };

export function entityWord(entity: string): string {
  return ENTITY_WORDS[entity] ?? entity;
}

/** Where an audit entry's record is shown in the workspace, if it has a page. */
export function recordPath(entity: string, entityId: string | number): string | null {
  if (entity === 'campaign') return `/workspace/campaigns/${entityId}`;
  if (entity === 'publisher') return `/workspace/publishers/${entityId}`;
  if (entity === 'placement') return '/workspace/placements';
  return null;
}
