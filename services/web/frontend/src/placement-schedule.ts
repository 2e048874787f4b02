/**
 * A website placement's state as a person reads it: an active placement is Scheduled
 * before its start, Live inside its schedule and Ended from its end (the public endpoint shows it only
 * while Live); draft and paused placements are never shown.
 */
import { countOf } from './format';
import type { Placement } from './types';

const IMPRESSIONS = { one: 'impression', many: 'impressions' };

export type PlacementState = 'draft' | 'paused' | 'scheduled' | 'live' | 'ended';

export function placementState(placement: Pick<Placement, 'status' | 'startsAt' | 'endsAt'>, now: Date): PlacementState {
  if (placement.status !== 'active') return placement.status;
  const at = now.getTime();
  if (placement.startsAt && at < Date.parse(placement.startsAt)) return 'scheduled';
  if (placement.endsAt && at >= Date.parse(placement.endsAt)) return 'ended';
  return 'live';
}

/**
 * A warning for a schedule that keeps an active placement off the page: its end is already past, or comes
 * before its start. Null when it can be shown (or is not meant to be: draft, paused).
 */
export function scheduleWarning(placement: Pick<Placement, 'status' | 'startsAt' | 'endsAt'>, now: Date): string | null {
  if (placement.status !== 'active' || !placement.endsAt) return null;
  const end = Date.parse(placement.endsAt);
  if (!Number.isFinite(end)) return null;
  if (end <= now.getTime()) return 'Its end is already past: an active placement with this schedule is Ended and never shown. Change or clear the end to show it.';
  if (placement.startsAt && Date.parse(placement.startsAt) >= end) return 'It ends before it starts, so it is never shown. Change the start or the end.';
  return null;
}

/** What the editor says after a save, given the placement before and the slot's answer. */
export function saveOutcome(beforeId: string | number | undefined, before: number, after: { placement: { placementId?: string | number } | null; impressions: number }): string {
  const afterId = after.placement?.placementId;
  if (beforeId !== undefined && afterId === beforeId) return `Saved. Nothing changed, so this is still the same placement with its ${countOf(after.impressions, IMPRESSIONS)}.`;
  if (beforeId !== undefined) return `Saved. This is a new placement: its impressions count from 0 (the previous placement had ${before}).`;
  return 'Saved. Its impressions count from 0.';
}
