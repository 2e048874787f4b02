import { SLOTS } from '../domain/slots';
import type { PlacementDeps } from './deps';
import { itemOf, type SlotItem } from './slot-item';

/** Every slot with its current placement (null when never set) and that placement's impressions. */
export async function listSlots(deps: Pick<PlacementDeps, 'placements' | 'impressions' | 'clock'>): Promise<SlotItem[]> {
  return Promise.all(SLOTS.map(async (slot) => itemOf(deps, slot, (await deps.placements.currentOf(slot))?.placement ?? null)));
}
