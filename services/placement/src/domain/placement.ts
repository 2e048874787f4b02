/**
 * A website placement: the creative an administrator puts into one slot, with its status and optional
 * UTC schedule. Every PUT that changes anything makes a new placement (new placementId); a PUT of the same
 * content keeps the current one. Impressions belong to one placement.
 */
import type { AdminPlacement, PlacementStatus, SitePlacement } from '@pilot/contracts';
import type { Slot } from './slots';

export { PLACEMENT_STATUSES, type PlacementStatus } from '@pilot/contracts';

export interface Placement {
  placementId: string;
  slot: Slot;
  title: string;
  buttonText: string;
  destinationUrl: string;
  imageUrl: string | null;
  status: PlacementStatus;
  startsAt: Date | null;
  endsAt: Date | null;
  createdAt: Date;
  createdBy: string;
}

/**
 * Shown publicly (and countable) only when active and `now` is inside the schedule: from `startsAt`
 * inclusive to `endsAt` exclusive; a missing bound is open.
 */
export function isShowable(placement: Placement | null | undefined, now: Date): placement is Placement {
  if (!placement || placement.status !== 'active') return false;
  const at = now.getTime();
  if (placement.startsAt && at < placement.startsAt.getTime()) return false;
  if (placement.endsAt && at >= placement.endsAt.getTime()) return false;
  return true;
}

/** What an administrator sets in a PUT (the placement without its identity and creation facts). */
export type PlacementContent = Pick<Placement, 'title' | 'buttonText' | 'destinationUrl' | 'imageUrl' | 'status' | 'startsAt' | 'endsAt'>;

const time = (at: Date | null): number | null => (at ? at.getTime() : null);

/** True when `input` would set exactly what `placement` already is: saving it again is no new placement. */
export function sameContent(placement: PlacementContent, input: PlacementContent): boolean {
  return (
    placement.title === input.title &&
    placement.buttonText === input.buttonText &&
    placement.destinationUrl === input.destinationUrl &&
    (placement.imageUrl ?? null) === (input.imageUrl ?? null) &&
    placement.status === input.status &&
    time(placement.startsAt) === time(input.startsAt) &&
    time(placement.endsAt) === time(input.endsAt)
  );
}

/** The public answer of GET /api/site/placements/{slot} (the contract SitePlacement). */
export type PublicPlacement = SitePlacement;

export function publicViewOf(placement: Placement): PublicPlacement {
  return {
    slot: placement.slot,
    placementId: placement.placementId,
    title: placement.title,
    buttonText: placement.buttonText,
    destinationUrl: placement.destinationUrl,
    imageUrl: placement.imageUrl,
  };
}

/** The administrator's view in GET/PUT /api/workspace/placements (the contract AdminPlacement). */
export type AdminPlacementView = AdminPlacement;

export function adminViewOf(placement: Placement): AdminPlacementView {
  return {
    ...publicViewOf(placement),
    status: placement.status,
    startsAt: placement.startsAt?.toISOString() ?? null,
    endsAt: placement.endsAt?.toISOString() ?? null,
    createdAt: placement.createdAt.toISOString(),
    createdBy: placement.createdBy,
  };
}
