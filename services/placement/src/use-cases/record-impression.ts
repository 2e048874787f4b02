import { isShowable } from '../domain/placement';
import type { Slot } from '../domain/slots';
import type { PlacementDeps } from './deps';

export type ImpressionOutcome = 'counted' | 'not_showable';

/** Counts an impression only for the slot's current placement while it is showable. */
export async function recordImpression(deps: Pick<PlacementDeps, 'showing' | 'impressions' | 'clock'>, slot: Slot, placementId: string): Promise<ImpressionOutcome> {
  const placement = (await deps.showing.currentOf(slot))?.placement;
  const now = deps.clock.now();
  if (!isShowable(placement, now) || placement.placementId !== placementId) return 'not_showable';
  await deps.impressions.record(placementId, now);
  return 'counted';
}
