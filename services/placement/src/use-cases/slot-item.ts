/** A slot as the workspace lists it: its current placement and that placement's impressions. */
import { adminViewOf, type AdminPlacementView, type Placement } from '../domain/placement';
import type { Slot } from '../domain/slots';
import type { PlacementDeps } from './deps';

export interface SlotItem {
  slot: Slot;
  placement: AdminPlacementView | null;
  impressions: number;
}

export async function itemOf(deps: Pick<PlacementDeps, 'impressions'>, slot: Slot, placement: Placement | null): Promise<SlotItem> {
  return {
    slot,
    placement: placement ? adminViewOf(placement) : null,
    impressions: placement ? await deps.impressions.countFor(placement.placementId) : 0,
  };
}
