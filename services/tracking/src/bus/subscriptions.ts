/**
 * Every subscription of tracking, in one place.
 * - allocation.created -> durable quorum queue "tracking": one ad request record per allocation (grouped
 *   into one insert with the others in flight); the bus acks each event only after its insert, and a
 *   redelivered event finds its record (idempotent by allocation id).
 * - campaign.* -> the replica's own broadcast queue, through ActiveCampaignCache (click destinations and
 *   whether a campaign is still active).
 * Publisher activity is read from the key read model in Redis rather than from publisher.* events: that
 * entry is written by publisher-identity before it answers a pause or rejection, so a paused publisher's
 * links stop at once, with no propagation window and no second copy of publisher state to keep.
 */
import type { Bus } from '@pilot/bus';
import type { ActiveCampaignCache } from '@pilot/campaign-cache';
import { ALLOCATION_CREATED, type AllocationCreated } from '@pilot/contracts';
import type { Logger } from '@pilot/logging';
import type { TrackingRecords } from '../data/records';
import { recordAllocation } from '../use-cases';

export interface SubscriptionHooks {
  /** Test seam: runs after an allocation's record was written and before the event is acked. */
  afterAllocationRecorded?: (allocationId: string) => Promise<void>;
}

export async function subscribe(
  bus: Bus,
  deps: { records: TrackingRecords; campaigns: ActiveCampaignCache; logger: Logger },
  hooks: SubscriptionHooks = {},
): Promise<void> {
  await bus.subscribeDurable({
    name: 'tracking',
    eventTypes: [ALLOCATION_CREATED],
    // Up to this many events are handled at once, so their records reach the database in one insert.
    prefetch: 100,
    handler: async (event) => {
      if (event.type !== ALLOCATION_CREATED) return;
      const created = await recordAllocation(deps, event as AllocationCreated);
      if (!created) deps.logger.debug({ allocationId: event.data.allocationId }, 'allocation already recorded');
      await hooks.afterAllocationRecorded?.(event.data.allocationId);
    },
  });
  // The snapshot may not be reachable yet (campaign starting): the cache keeps retrying in the background
  // and readiness reports it; click links answer 503 until it is loaded.
  deps.campaigns.start().catch((error: unknown) => deps.logger.warn({ err: (error as Error).message }, 'campaign cache not started yet; retrying'));
}
