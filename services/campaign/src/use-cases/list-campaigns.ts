import { pageOf, type Page } from '@pilot/platform';
import type { CurrentPosition } from '@pilot/storage';
import type { CampaignListFilter } from '../data/campaign-repository';
import type { CampaignDeps } from './deps';
import { viewOf, type CampaignView } from './stored-campaign';

/**
 * A page of the list, newest first (ties by id), after `after`. The filter's owner is decided by the
 * route from the caller (an owner's own records, or what an administrator asked for).
 */
export async function listCampaigns(deps: Pick<CampaignDeps, 'repository'>, filter: CampaignListFilter, after: CurrentPosition | null, limit: number): Promise<Page<CampaignView>> {
  const campaigns = await deps.repository.listPage(filter, after, limit + 1);
  return pageOf(campaigns, limit, (campaign) => [new Date(campaign.createdAt), campaign.campaignId], viewOf);
}
