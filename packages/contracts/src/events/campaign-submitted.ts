import type { EventEnvelope } from '../envelope';
import { campaignStateSchema, type CampaignState } from './campaign-state';

export const CAMPAIGN_SUBMITTED = 'campaign.submitted' as const;
export type CampaignSubmitted = EventEnvelope<typeof CAMPAIGN_SUBMITTED, CampaignState>;
export const campaignSubmittedDataSchema = campaignStateSchema;
