import type { DataSchema } from '../envelope';

/** All campaign events carry the campaign's full state after the change, so a consumer needs no call back. */
export interface CampaignState {
  campaignId: number;
  ownerAccountId: string;
  status: 'draft' | 'submitted' | 'approved' | 'active' | 'paused' | 'rejected';
  format: 'bot' | 'channel';
  language: string;
  title: string;
  text: string;
  buttonText: string;
  imageUrl: string | null;
  destinationUrl: string;
}

export const campaignStateSchema: DataSchema<CampaignState> = {
  type: 'object',
  additionalProperties: false,
  required: ['campaignId', 'ownerAccountId', 'status', 'format', 'language', 'title', 'text', 'buttonText', 'imageUrl', 'destinationUrl'],
  properties: {
    campaignId: { type: 'integer', minimum: 1 },
    ownerAccountId: { type: 'string', pattern: '^[0-9]{1,20}$' },
    status: { type: 'string', enum: ['draft', 'submitted', 'approved', 'active', 'paused', 'rejected'] },
    format: { type: 'string', enum: ['bot', 'channel'] },
    language: { type: 'string', pattern: '^(?:[a-z]{2}|all)$' },
    title: { type: 'string', minLength: 1 },
    text: { type: 'string', minLength: 1 },
    buttonText: { type: 'string', minLength: 1 },
    imageUrl: { type: 'string', nullable: true },
    destinationUrl: { type: 'string', minLength: 1 },
  },
};
