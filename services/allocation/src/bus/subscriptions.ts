/**
 * Every bus subscription of allocation, in one place (every service that consumes events has this file and this `subscribe`,
 * called by start.ts once the bus is open, before the routes are mounted):
 * - campaign.* -> this replica's own broadcast queue, through ActiveCampaignCache, feeding the selection
 *   index. On every (re)connect the cache is rebuilt from the campaign service's snapshot before events are
 *   consumed; stale versions are ignored by the cache.
 */
import type { Bus } from '@pilot/messaging';
import { ActiveCampaignCache, type CachedCampaign } from '@pilot/campaign-cache';
import type { Logger } from '@pilot/platform';
import type { CampaignIndex } from '../domain/selection';

export function subscribe(deps: {
  bus: Bus;
  logger: Logger;
  index: CampaignIndex;
  loadSnapshot: () => Promise<CachedCampaign[]>;
}): { campaigns: ActiveCampaignCache } {
  const campaigns = new ActiveCampaignCache({
    bus: deps.bus,
    loadSnapshot: deps.loadSnapshot,
    logger: deps.logger,
    listener: deps.index,
    owner: 'allocation',
  });
  // Not awaited: the broadcast channel keeps retrying the snapshot until the campaign service answers;
  // until then /readyz says not ready and ad requests answer 503.
  campaigns.start().catch((error: unknown) => deps.logger.warn({ err: (error as Error).message }, 'campaign cache still connecting'));
  return { campaigns };
}
