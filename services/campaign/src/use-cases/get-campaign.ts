import type { Principal } from '@pilot/platform';
import type { CampaignDeps } from './deps';
import { viewOf, type CampaignView } from './stored-campaign';
import { visibleCampaign } from './visible-campaign';

/** GET of one campaign the caller may see (one read by id). */
export async function getCampaign(deps: Pick<CampaignDeps, 'repository'>, caller: Principal, campaignId: number | null): Promise<CampaignView> {
  return viewOf(await visibleCampaign(deps, caller, campaignId));
}
