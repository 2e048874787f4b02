import type { DataSchema, EventEnvelope } from '../envelope';

export const ALLOCATION_CREATED = 'allocation.created' as const;

export interface AllocationCreatedData {
  allocationId: string;
  campaignId: number;
  campaignOwnerAccountId: string;
  publisherId: number;
  publisherOwnerAccountId: string;
  format: 'bot' | 'channel';
  language: string;
  allocatedAt: string;
}

export type AllocationCreated = EventEnvelope<typeof ALLOCATION_CREATED, AllocationCreatedData>;

export const allocationCreatedDataSchema: DataSchema<AllocationCreatedData> = {
  type: 'object',
  additionalProperties: false,
  required: ['allocationId', 'campaignId', 'campaignOwnerAccountId', 'publisherId', 'publisherOwnerAccountId', 'format', 'language', 'allocatedAt'],
  properties: {
    allocationId: { type: 'string', minLength: 1, maxLength: 64 },
    campaignId: { type: 'integer', minimum: 1 },
    campaignOwnerAccountId: { type: 'string', pattern: '^[0-9]{1,20}$' },
    publisherId: { type: 'integer', minimum: 1 },
    publisherOwnerAccountId: { type: 'string', pattern: '^[0-9]{1,20}$' },
    format: { type: 'string', enum: ['bot', 'channel'] },
    language: { type: 'string', pattern: '^[a-z]{2}$' },
    allocatedAt: { type: 'string', format: 'date-time' },
  },
};
