/**
 * A website placement: the creative an administrator puts into one slot, with its status and optional
 * UTC schedule. Every PUT makes a new placement (new placementId); impressions belong to one placement.
 */
import type { Slot } from './slots';

export const PLACEMENT_STATUSES = ['draft', 'active', 'paused'] as const;
export type PlacementStatus = (typeof PLACEMENT_STATUSES)[number];

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

/** The public answer of GET /api/site/placements/{slot}. */
export interface PublicPlacement {
  slot: Slot;
  placementId: string;
  title: string;
  buttonText: string;
  destinationUrl: string;
  imageUrl: string | null;
}

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

/** The administrator's view in GET/PUT /api/workspace/placements. */
export interface AdminPlacementView extends PublicPlacement {
  status: PlacementStatus;
  startsAt: string | null;
  endsAt: string | null;
  createdAt: string;
  createdBy: string;
}

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
