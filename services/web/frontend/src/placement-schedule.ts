/**
 * A website placement's state as a person reads it: an active placement is Scheduled
 * before its start, Live inside its schedule and Ended from its end (the public endpoint shows it only
 * while Live); draft and paused placements are never shown.
 */
import type { Placement } from './types';

export type PlacementState = 'draft' | 'paused' | 'scheduled' | 'live' | 'ended';

export function placementState(placement: Pick<Placement, 'status' | 'startsAt' | 'endsAt'>, now: Date): PlacementState {
  if (placement.status !== 'active') return placement.status;
  const at = now.getTime();
  if (placement.startsAt && at < Date.parse(placement.startsAt)) return 'scheduled';
  if (placement.endsAt && at >= Date.parse(placement.endsAt)) return 'ended';
  return 'live';
}

/** What the editor says after a save, given the placement before and the slot's answer. */
export function saveOutcome(beforeId: string | number | undefined, before: number, after: { placement: { placementId?: string | number } | null; impressions: number }): string {
  const afterId = after.placement?.placementId;
  if (beforeId !== undefined && afterId === beforeId) return `Saved. Nothing changed, so this is still the same placement with its ${after.impressions} impression(s).`;
  if (beforeId !== undefined) return `Saved. This is a new placement: its impressions count from 0 (the previous placement had ${before}).`;
  return 'Saved. Its impressions count from 0.';
}
