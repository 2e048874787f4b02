import { LIST_COUNT_CAP, pageOf, withCount, type ListCount, type ListRead, type Page } from '@pilot/platform';
import type { CampaignListFilter } from '../data/campaign-repository';
import type { CampaignDeps } from './deps';
import { viewOf, type CampaignView } from './stored-campaign';

/**
 * A page of the list, newest (or oldest) first, ties by id, after `read.after`; with `read.count`, how many
 * campaigns the filters match (up to 100: LIST_COUNT_CAP). The filter's owner is decided by the route from the caller
 * (an owner's own records, or what an administrator asked for).
 */
export async function listCampaigns(deps: Pick<CampaignDeps, 'repository'>, filter: CampaignListFilter, read: ListRead): Promise<Page<CampaignView> & Partial<ListCount>> {
  const [campaigns, counted] = await Promise.all([
    deps.repository.listPage(filter, read.after, read.limit + 1, read.order),
    read.count ? deps.repository.countMatching(filter, LIST_COUNT_CAP) : null,
  ]);
  return withCount(pageOf(campaigns, read.limit, (campaign) => [new Date(campaign.createdAt), campaign.campaignId], viewOf), counted);
}
