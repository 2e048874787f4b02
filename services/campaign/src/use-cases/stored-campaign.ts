/** A stored campaign as the API answers it (`viewOf`) and as the domain's rules take it (`recordOf`). */
import type { Campaign } from '@pilot/contracts';
import type { StoredCampaign } from '../data/campaign-repository';
import type { CampaignRecord } from '../domain/campaign';

/** The campaign object of API.md, as the contract's schema writes it. */
export type CampaignView = Campaign;

export function viewOf(campaign: StoredCampaign): CampaignView {
  const { campaignId, pauseReason, ...fields } = recordOf(campaign);
  return {
    id: campaignId,
    ...fields,
    pauseReason: fields.status === 'paused' ? (pauseReason ?? null) : null,
    createdAt: new Date(campaign.createdAt).toISOString(),
    updatedAt: new Date(campaign.updatedAt).toISOString(),
  };
}

/** The fields of the record, copied one by one: what the rules and the answers read, nothing else the document holds. */
export function recordOf(campaign: StoredCampaign): CampaignRecord {
  return {
    campaignId: campaign.campaignId,
    ownerAccountId: campaign.ownerAccountId,
    status: campaign.status,
    name: campaign.name,
    format: campaign.format,
    title: campaign.title,
    text: campaign.text,
    destinationUrl: campaign.destinationUrl,
    buttonText: campaign.buttonText,
    imageUrl: campaign.imageUrl,
    language: campaign.language,
    replaces: campaign.replaces,
    rejectionReason: campaign.rejectionReason,
    pauseReason: campaign.pauseReason ?? null,
  };
}
