import { problems, type Principal } from '@pilot/platform';
import { duplicateInput } from '../domain/campaign';
import { storeDraft } from './create-campaign';
import type { CampaignDeps } from './deps';
import { recordOf, type CampaignView } from './stored-campaign';
import { visibleCampaign } from './visible-campaign';

/**
 * POST /api/workspace/campaigns/:id/duplicate: the owner's new draft with the campaign's creative inputs,
 * named as a copy and replacing nothing; it counts toward the account's records like any draft. Anyone
 * but the owner learns 404, as from a read of a campaign it cannot see.
 */
export async function duplicateCampaign(deps: CampaignDeps, caller: Principal, campaignId: number | null): Promise<CampaignView> {
  const campaign = await visibleCampaign(deps, caller, campaignId);
  if (campaign.ownerAccountId !== caller.accountId) throw problems.notFound('campaign_not_found', 'No such campaign');
  return storeDraft(deps, caller, duplicateInput(recordOf(campaign)), 'duplicated');
}
