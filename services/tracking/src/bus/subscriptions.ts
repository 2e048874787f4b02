/**
 * Every bus subscription of tracking, in one place (every service that consumes events has this file and this `subscribe`,
 * called by start.ts once the bus is open, before the routes are mounted):
 * - campaign.* -> the replica's own broadcast queue, through ActiveCampaignCache (click destinations and
 *   whether a campaign is still active).
 * Ad requests reach the totals through the counting pipeline in Redis, not the bus.
 * Publisher activity is read from the key read model in Redis rather than from publisher.* events: that
 * entry is written by publisher-identity before it answers a pause or rejection, so a paused publisher's
 * links stop at once, with no propagation window and no second copy of publisher state to keep.
 */
import type { Bus } from '@pilot/messaging';
import { ActiveCampaignCache, type CachedCampaign } from '@pilot/campaign-cache';
import type { Logger } from '@pilot/platform';

export function subscribe(deps: {
  bus: Bus;
  logger: Logger;
  loadSnapshot: () => Promise<CachedCampaign[]>;
}): { campaigns: ActiveCampaignCache } {
  const campaigns = new ActiveCampaignCache({ bus: deps.bus, logger: deps.logger, owner: 'tracking', loadSnapshot: deps.loadSnapshot });
  // The snapshot may not be reachable yet (campaign starting): the cache keeps retrying in the background
  // and readiness reports it; click links answer 503 until it is loaded.
  campaigns.start().catch((error: unknown) => deps.logger.warn({ err: (error as Error).message }, 'campaign cache not started yet; retrying'));
  return { campaigns };
}
