import type { EventEnvelope } from '../envelope';
import { campaignStateSchema, type CampaignState } from './campaign-state';

export const CAMPAIGN_PAUSED = 'campaign.paused' as const;
export type CampaignPaused = EventEnvelope<typeof CAMPAIGN_PAUSED, CampaignState>;
export const campaignPausedDataSchema = campaignStateSchema;
