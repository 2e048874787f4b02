/** A stored campaign as the API answers it (`viewOf`) and as the domain's rules take it (`recordOf`). */
import type { Campaign } from '@pilot/contracts';
import type { StoredCampaign } from '../data/campaign-repository';
import type { CampaignRecord } from '../domain/campaign';

/** The campaign object of API.md, as the contract's schema writes it. */
export type CampaignView = Campaign;

export function viewOf(campaign: StoredCampaign): CampaignView {
  return {
    id: campaign.campaignId,
    name: campaign.name,
    format: campaign.format,
    title: campaign.title,
    text: campaign.text,
    destinationUrl: campaign.destinationUrl,
    buttonText: campaign.buttonText,
    imageUrl: campaign.imageUrl,
    language: campaign.language,
    status: campaign.status,
    replaces: campaign.replaces,
    rejectionReason: campaign.rejectionReason,
    pauseReason: campaign.status === 'paused' ? (campaign.pauseReason ?? null) : null,
    ownerAccountId: campaign.ownerAccountId,
    createdAt: new Date(campaign.createdAt).toISOString(),
    updatedAt: new Date(campaign.updatedAt).toISOString(),
  };
}

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
