import { Type, type Static } from '@sinclair/typebox';
import type { EventEnvelope } from '../envelope';
import { CAMPAIGN_FORMATS } from '../schemas/campaign';
import { AccountId, literals } from '../schemas/fields';

export const ALLOCATION_CREATED = 'allocation.created' as const;

export const allocationCreatedDataSchema = Type.Object(
  {
    allocationId: Type.String({ minLength: 1, maxLength: 64 }),
    campaignId: Type.Integer({ minimum: 1 }),
    campaignOwnerAccountId: AccountId,
    publisherId: Type.Integer({ minimum: 1 }),
    publisherOwnerAccountId: AccountId,
    format: literals(CAMPAIGN_FORMATS),
    language: Type.String({ pattern: '^[a-z]{2}$' }),
    allocatedAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false },
);
export type AllocationCreatedData = Static<typeof allocationCreatedDataSchema>;

export type AllocationCreated = EventEnvelope<typeof ALLOCATION_CREATED, AllocationCreatedData>;
