/**
 * Every bus subscription of the notification service, in one place (every service that consumes events has this file and this
 * `subscribe`, called by start.ts once the bus is open, before the routes are mounted):
 * - campaign.* and publisher.* (but key rotations) -> the durable quorum queue `notification`, through
 *   Notify: an owner's message for a reviewed, activated or paused record, the administrators' summary
 *   for a record entering the review queue. An event is acknowledged after what was sent is recorded.
 */
import type { Bus } from '@pilot/messaging';
import type { KnownEvent } from '@pilot/contracts';
import type { Notify } from '../use-cases/notify';

const NOTIFIED_EVENTS = [
  'campaign.submitted',
  'campaign.approved',
  'campaign.rejected',
  'campaign.activated',
  'campaign.paused',
  'publisher.submitted',
  'publisher.approved',
  'publisher.rejected',
  'publisher.paused',
] as const satisfies readonly KnownEvent['type'][];

/** The durable queue's name (without the bus prefix). */
export const NOTIFICATION_QUEUE = 'notification';

export async function subscribe(deps: { bus: Bus; notify: Notify; prefetch: number }): Promise<void> {
  await deps.bus.subscribeDurable({
    name: NOTIFICATION_QUEUE,
    eventTypes: NOTIFIED_EVENTS,
    handler: (event) => deps.notify.handle(event),
    prefetch: deps.prefetch,
  });
}
