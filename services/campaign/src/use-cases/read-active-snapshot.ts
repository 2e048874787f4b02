import type { CampaignState } from '@pilot/contracts';
import { campaignStateOf } from '../domain/campaign';
import type { CampaignDeps } from './deps';
import { recordOf } from './stored-campaign';

export type SnapshotCampaign = CampaignState & { version: number };

/**
 * What a campaign cache rebuilds from: every active campaign with its version, and every paused one,
 * whose version is the floor below which a republished `campaign.activated` is stale.
 * Paused is the only state an active campaign can leave for, so these are all the floors that matter.
 */
export async function readActiveSnapshot(deps: Pick<CampaignDeps, 'repository'>): Promise<{ items: SnapshotCampaign[] }> {
  const active = await deps.repository.listInStatus('active');
  const paused = await deps.repository.listInStatus('paused');
  return { items: [...active, ...paused].map((campaign) => ({ ...campaignStateOf(recordOf(campaign)), version: campaign.version })) };
}
