import type { EventEnvelope } from '../envelope';
import { campaignStateSchema, type CampaignState } from './campaign-state';

export const CAMPAIGN_ACTIVATED = 'campaign.activated' as const;
export type CampaignActivated = EventEnvelope<typeof CAMPAIGN_ACTIVATED, CampaignState>;
export const campaignActivatedDataSchema = campaignStateSchema;
