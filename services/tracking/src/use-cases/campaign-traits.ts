import type { ActiveCampaignCache } from '@pilot/campaign-cache';
import type { CampaignTraits } from '../domain/report';

/**
 * A campaign's language and format for the report: the active campaigns' cache holds them, and as they
 * never change once a campaign is created they are remembered here after the campaign stops being active.
 * A campaign not active since this replica started is unknown (its row's language and format are null).
 */
export class CampaignTraitsMemory {
  private readonly seen = new Map<number, CampaignTraits>();

  constructor(private readonly campaigns: Pick<ActiveCampaignCache, 'get' | 'all'>) {}

  /** Remembers every campaign the cache holds now (each read of the report does, before looking up). */
  remember(): void {
    for (const campaign of this.campaigns.all()) if (!this.seen.has(campaign.campaignId)) this.seen.set(campaign.campaignId, { language: campaign.language, format: campaign.format });
  }

  of(campaignId: number): CampaignTraits | undefined {
    const active = this.campaigns.get(campaignId);
    return active ? { language: active.language, format: active.format } : this.seen.get(campaignId);
  }
}
