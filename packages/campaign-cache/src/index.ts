/**
 * An in-memory copy of the active campaigns, kept by every replica that needs one (allocation selects
 * from it, tracking resolves click destinations with it). It is rebuilt from the campaign service's
 * snapshot on every (re)connect to the broker and then kept current by `campaign.*` events on the
 * replica's own broadcast queue. Events whose aggregateVersion is not newer than the newest version seen of
 * that campaign (by event or snapshot, kept for every campaign across rebuilds) are ignored, so replays,
 * duplicates from the outbox and events older than the snapshot do no harm, even for paused campaigns.
 */
import type { Bus } from '@pilot/messaging';
import {
  CAMPAIGN_ACTIVATED,
  CAMPAIGN_APPROVED,
  CAMPAIGN_PAUSED,
  CAMPAIGN_REJECTED,
  CAMPAIGN_SUBMITTED,
  type CampaignEvent,
  type KnownEvent,
} from '@pilot/contracts';
import type { Logger } from '@pilot/platform';
import { trace } from '@opentelemetry/api';
import type { CachedCampaign } from './snapshot-loader';

export { registerCampaignCacheMetrics } from './metrics';
export { campaignSnapshotLoader, SNAPSHOT_PATH, type CachedCampaign } from './snapshot-loader';

export interface CampaignCacheListener {
  /** A campaign became active or changed while active. */
  upsert(campaign: CachedCampaign): void;
  /** A campaign is no longer active. */
  remove(campaignId: number): void;
  /** Everything was replaced by a snapshot. */
  reset(campaigns: CachedCampaign[]): void;
}

export interface CampaignCacheOptions {
  bus: Bus;
  /** The campaign service's snapshot: active campaigns, and paused ones for their versions. */
  loadSnapshot: () => Promise<CachedCampaign[]>;
  logger: Logger;
  listener?: CampaignCacheListener;
  /** Who keeps this cache (the service), named on its trace spans. */
  owner?: string;
}

export const CAMPAIGN_EVENT_TYPES = [CAMPAIGN_SUBMITTED, CAMPAIGN_APPROVED, CAMPAIGN_ACTIVATED, CAMPAIGN_PAUSED, CAMPAIGN_REJECTED] as const;

function isCampaignEvent(event: KnownEvent): event is CampaignEvent {
  return (CAMPAIGN_EVENT_TYPES as readonly string[]).includes(event.type);
}

export class ActiveCampaignCache {
  private readonly active = new Map<number, CachedCampaign>();
  /** Newest version seen per campaign, active or not, to drop stale events; survives rebuilds. */
  private readonly versions = new Map<number, number>();
  private snapshotLoaded = false;
  private snapshotAt: Date | null = null;
  /** When the newest change this replica applied was made: the last applied event's, or the snapshot's time. */
  private lastChangeAt: Date | null = null;

  constructor(private readonly options: CampaignCacheOptions) {}

  async start(): Promise<void> {
    // Without the broker, pauses would go unseen: the cache is stale until the next snapshot.
    this.options.bus.onDisconnect(() => {
      this.snapshotLoaded = false;
    });
    await this.options.bus.subscribeBroadcast({
      eventTypes: CAMPAIGN_EVENT_TYPES,
      beforeConsume: () => this.rebuild(),
      handler: async (event) => {
        if (isCampaignEvent(event)) this.tracedApply(event);
      },
    });
  }

  /**
   * Ready while it is up to date: a snapshot applied since the last connection to the broker, and the
   * connection still there. Readiness probes report it; the ad and click paths refuse to work without it.
   */
  isReady(): boolean {
    return this.snapshotLoaded && this.options.bus.isConnected();
  }

  get(campaignId: number): CachedCampaign | undefined {
    return this.active.get(campaignId);
  }

  size(): number {
    return this.active.size;
  }

  all(): IterableIterator<CachedCampaign> {
    return this.active.values();
  }

  lastSnapshotAt(): Date | null {
    return this.snapshotAt;
  }

  /** When the last change this replica applied was made (its event's occurredAt, or the last snapshot). */
  lastAppliedChangeAt(): Date | null {
    return this.lastChangeAt;
  }

  /**
   * Replaces the active set with the snapshot's. Version floors are kept across rebuilds and raised by
   * every snapshot item, active or paused: a campaign paused while the broker was away is absent from the
   * active set, yet a republished older `campaign.activated` must still be recognised as stale.
   */
  async rebuild(): Promise<void> {
    const campaigns = await this.options.loadSnapshot();
    const previous = new Map(this.active);
    this.active.clear();
    for (const campaign of campaigns) {
      const floor = this.versions.get(campaign.campaignId) ?? 0;
      if (campaign.version < floor) {
        // A stale snapshot item: the event applied before the reconnect is newer, keep what it left.
        const kept = previous.get(campaign.campaignId);
        if (kept) this.active.set(campaign.campaignId, kept);
        continue;
      }
      this.versions.set(campaign.campaignId, campaign.version);
      if (campaign.status === 'active') this.active.set(campaign.campaignId, campaign);
    }
    this.options.listener?.reset([...this.active.values()]);
    this.snapshotLoaded = true;
    this.snapshotAt = new Date();
    this.lastChangeAt = this.snapshotAt;
    this.options.logger.info({ activeCampaigns: this.active.size, knownVersions: this.versions.size }, 'campaign cache rebuilt from snapshot');
  }

  /** apply() in a span of the event's trace (the bus's consumer span is its parent). */
  private tracedApply(event: CampaignEvent): void {
    trace.getTracer('@pilot/campaign-cache').startActiveSpan('campaign cache apply', (span) => {
      span.setAttributes({ 'pilot.campaign_id': event.data.campaignId, 'pilot.campaign_cache.applied': this.apply(event), 'pilot.cache_owner': this.options.owner ?? 'unnamed' });
      span.end();
    });
  }

  /** Applies one event; returns false when it was stale and ignored. */
  apply(event: CampaignEvent): boolean {
    const campaignId = event.data.campaignId;
    const known = this.versions.get(campaignId) ?? 0;
    if (event.aggregateVersion <= known) return false;
    this.versions.set(campaignId, event.aggregateVersion);
    this.lastChangeAt = new Date(event.occurredAt);
    if (event.data.status === 'active') {
      const campaign: CachedCampaign = { ...event.data, version: event.aggregateVersion };
      this.active.set(campaignId, campaign);
      this.options.listener?.upsert(campaign);
    } else if (this.active.delete(campaignId)) {
      this.options.listener?.remove(campaignId);
    }
    return true;
  }
}
