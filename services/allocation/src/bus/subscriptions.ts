/**
 * Every subscription of allocation: `campaign.*` on this replica's own broadcast queue, feeding the
 * campaign cache and through it the selection index. On every (re)connect the cache is rebuilt from the
 * campaign service's snapshot before events are consumed; stale versions are ignored by the cache.
 */
import type { Bus } from '@pilot/bus';
import { ActiveCampaignCache, type CachedCampaign } from '@pilot/campaign-cache';
import type { Logger } from '@pilot/logging';
import type { CampaignIndex } from '../domain/selection';

export function subscribeCampaignCache(options: {
  bus: Bus;
  index: CampaignIndex;
  loadSnapshot: () => Promise<CachedCampaign[]>;
  logger: Logger;
}): ActiveCampaignCache {
  const cache = new ActiveCampaignCache({
    bus: options.bus,
    loadSnapshot: options.loadSnapshot,
    logger: options.logger,
    listener: options.index,
    owner: 'allocation',
  });
  // Not awaited: the broadcast channel keeps retrying the snapshot until the campaign service answers;
  // until then /readyz says not ready and ad requests answer 503.
  cache.start().catch((error: unknown) => options.logger.warn({ err: (error as Error).message }, 'campaign cache still connecting'));
  return cache;
}
