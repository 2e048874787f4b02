import type { EventEnvelope } from '../envelope';
import { campaignStateSchema, type CampaignState } from './campaign-state';

export const CAMPAIGN_APPROVED = 'campaign.approved' as const;
export type CampaignApproved = EventEnvelope<typeof CAMPAIGN_APPROVED, CampaignState>;
export const campaignApprovedDataSchema = campaignStateSchema;
