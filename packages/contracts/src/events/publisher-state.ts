import type { DataSchema } from '../envelope';

/** All publisher events carry the platform's state after the change (never a key or its hash). */
export interface PublisherState {
  publisherId: number;
  ownerAccountId: string;
  status: 'draft' | 'submitted' | 'approved' | 'paused' | 'rejected';
  type: 'bot' | 'channel';
  link: string;
  keyCreatedAt: string | null;
}

export const publisherStateSchema: DataSchema<PublisherState> = {
  type: 'object',
  additionalProperties: false,
  required: ['publisherId', 'ownerAccountId', 'status', 'type', 'link', 'keyCreatedAt'],
  properties: {
    publisherId: { type: 'integer', minimum: 1 },
    ownerAccountId: { type: 'string', pattern: '^[0-9]{1,20}$' },
    status: { type: 'string', enum: ['draft', 'submitted', 'approved', 'paused', 'rejected'] },
    type: { type: 'string', enum: ['bot', 'channel'] },
    link: { type: 'string', minLength: 1 },
    keyCreatedAt: { type: 'string', nullable: true },
  },
};
