import type { DataSchema, EventEnvelope } from '../envelope';

export const PLACEMENT_CHANGED = 'placement.changed' as const;

export interface PlacementChangedData {
  slot: 'home-feature' | 'workspace-top' | 'tr-footer';
  placementId: string;
  status: 'draft' | 'active' | 'paused';
  startsAt: string | null;
  endsAt: string | null;
}

export type PlacementChanged = EventEnvelope<typeof PLACEMENT_CHANGED, PlacementChangedData>;

export const placementChangedDataSchema: DataSchema<PlacementChangedData> = {
  type: 'object',
  additionalProperties: false,
  required: ['slot', 'placementId', 'status', 'startsAt', 'endsAt'],
  properties: {
    slot: { type: 'string', enum: ['home-feature', 'workspace-top', 'tr-footer'] },
    placementId: { type: 'string', minLength: 1, maxLength: 64 },
    status: { type: 'string', enum: ['draft', 'active', 'paused'] },
    startsAt: { type: 'string', nullable: true },
    endsAt: { type: 'string', nullable: true },
  },
};
