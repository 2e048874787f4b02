/**
 * A replica's view of its campaign cache for Prometheus, read at scrape time. The age of the last applied
 * change grows in a quiet system too: compare replicas of one service (one far behind the others is stale)
 * rather than alerting on the age alone.
 */
import { Gauge, type Registry } from 'prom-client';

/** What the gauges read of a campaign cache (ActiveCampaignCache). */
export interface ObservedCampaignCache {
  size(): number;
  isReady(): boolean;
  lastAppliedChangeAt(): Date | null;
}

export function registerCampaignCacheMetrics(registry: Registry, cache: ObservedCampaignCache, now: () => number = Date.now): void {
  new Gauge({
    name: 'pilot_campaign_cache_campaigns',
    help: "Active campaigns in this replica's campaign cache",
    registers: [registry],
    collect() {
      this.set(cache.size());
    },
  });
  new Gauge({
    name: 'pilot_campaign_cache_ready',
    help: '1 while the cache holds a snapshot taken since the last connection to the broker and the connection is up',
    registers: [registry],
    collect() {
      this.set(cache.isReady() ? 1 : 0);
    },
  });
  new Gauge({
    name: 'pilot_campaign_cache_last_change_age_seconds',
    help: 'Age of the newest change this replica applied (its event, or the snapshot); absent before the first snapshot',
    registers: [registry],
    collect() {
      this.reset();
      const at = cache.lastAppliedChangeAt();
      if (at) this.set(Math.max(0, now() - at.getTime()) / 1000);
    },
  });
}
