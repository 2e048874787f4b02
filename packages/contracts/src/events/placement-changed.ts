import { Type, type Static } from '@sinclair/typebox';
import type { EventEnvelope } from '../envelope';
import { PLACEMENT_STATUSES, SLOTS } from '../schemas/placement';
import { literals } from '../schemas/fields';

export const PLACEMENT_CHANGED = 'placement.changed' as const;

export const placementChangedDataSchema = Type.Object(
  {
    slot: literals(SLOTS),
    placementId: Type.String({ minLength: 1, maxLength: 64 }),
    status: literals(PLACEMENT_STATUSES),
    startsAt: Type.Union([Type.String(), Type.Null()]),
    endsAt: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
);
export type PlacementChangedData = Static<typeof placementChangedDataSchema>;

export type PlacementChanged = EventEnvelope<typeof PLACEMENT_CHANGED, PlacementChangedData>;
