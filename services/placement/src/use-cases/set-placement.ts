import { randomUUID } from 'node:crypto';
import { createEnvelope, PLACEMENT_CHANGED, type PlacementChanged } from '@pilot/contracts';
import { adminViewOf, sameContent, type Placement } from '../domain/placement';
import type { Slot } from '../domain/slots';
import type { PlacementInput } from '../domain/validation';
import type { PlacementDeps } from './deps';
import { itemOf, type SlotItem } from './slot-item';
import type { Principal } from '@pilot/platform';

/** The audit action of every PUT: the slot got a new current placement. */
const SET_ACTION = 'set';

/**
 * A PUT of exactly what the slot already holds changes nothing: the same placement, its impressions kept,
 * no audit entry, no event. Anything else is a new placement whose count starts at 0.
 */
export async function setPlacement(deps: Pick<PlacementDeps, 'placements' | 'showing' | 'impressions' | 'clock'>, slot: Slot, input: PlacementInput, caller: Principal): Promise<SlotItem> {
  const current = (await deps.placements.currentOf(slot))?.placement ?? null;
  if (current && sameContent(current, input)) return itemOf(deps, slot, current);
  const now = deps.clock.now();
  const placement: Placement = { placementId: randomUUID(), slot, ...input, createdAt: now, createdBy: caller.accountId };
  const eventsFor = (version: number): PlacementChanged[] => [
    createEnvelope(
      PLACEMENT_CHANGED,
      slot,
      version,
      {
        slot,
        placementId: placement.placementId,
        status: placement.status,
        startsAt: placement.startsAt?.toISOString() ?? null,
        endsAt: placement.endsAt?.toISOString() ?? null,
      },
      now,
    ),
  ];
  await deps.placements.replace(slot, placement, { at: now, actorAccountId: caller.accountId, action: SET_ACTION }, eventsFor);
  deps.showing.forget(slot);
  return { slot, placement: adminViewOf(placement), impressions: 0 };
}
