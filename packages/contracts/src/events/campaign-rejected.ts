import type { EventEnvelope } from '../envelope';
import { campaignStateSchema, type CampaignState } from './campaign-state';

export const CAMPAIGN_REJECTED = 'campaign.rejected' as const;
export type CampaignRejected = EventEnvelope<typeof CAMPAIGN_REJECTED, CampaignState>;
export const campaignRejectedDataSchema = campaignStateSchema;
