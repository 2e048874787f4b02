/** The campaign a caller names, when it may see it; 404 `campaign_not_found` otherwise (a campaign it cannot see included). */
import { problems, type Principal } from '@pilot/platform';
import type { StoredCampaign } from '../data/campaign-repository';
import { canSee } from '../domain/campaign';
import type { CampaignDeps } from './deps';

/** The campaign as it is now (one read by id). */
export async function visibleCampaign(deps: Pick<CampaignDeps, 'repository'>, caller: Principal, campaignId: number | null): Promise<StoredCampaign> {
  return visibleOf(caller, campaignId === null ? null : await deps.repository.load(campaignId));
}

function visibleOf(caller: Principal, campaign: StoredCampaign | null): StoredCampaign {
  if (!campaign || !canSee(campaign, caller)) throw problems.notFound('campaign_not_found', 'No such campaign');
  return campaign;
}
