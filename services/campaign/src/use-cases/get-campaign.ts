import type { Principal } from '@pilot/platform';
import type { CampaignDeps } from './deps';
import { viewOf, type CampaignView } from './stored-campaign';
import { visibleProjection } from './visible-campaign';

/** From the projection alone: a change interrupted before its projection shows once the repair rolls it forward. */
export async function getCampaign(deps: Pick<CampaignDeps, 'repository'>, caller: Principal, campaignId: number | null): Promise<CampaignView> {
  return viewOf(await visibleProjection(deps, caller, campaignId));
}
