/**
 * Every bus subscription of the notification service, in one place (every service that consumes events has this file and this
 * `subscribe`, called by start.ts once the bus is open, before the routes are mounted):
 * - campaign.* and publisher.* (but key rotations) -> the durable quorum queue `notification`, through
 *   notifyChange: an owner's message for a reviewed, activated or paused record, the administrators' summary
 *   for a record entering the review queue. An event is acknowledged after what was sent is recorded.
 */
import type { Bus } from '@pilot/messaging';
import type { DurablyConsumedEventType } from '@pilot/contracts';
import type { NotificationDeps } from '../use-cases/deps';
import { notifyChange } from '../use-cases/notify-change';

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
] as const satisfies readonly DurablyConsumedEventType[]; // listed in @pilot/contracts' DURABLE_CONSUMERS, so they are parked until this queue exists

/** The durable queue's name (without the bus prefix). */
export const NOTIFICATION_QUEUE = 'notification';

export async function subscribe({ bus, deps, prefetch }: { bus: Bus; deps: NotificationDeps; prefetch: number }): Promise<void> {
  await bus.subscribeDurable({
    name: NOTIFICATION_QUEUE,
    eventTypes: NOTIFIED_EVENTS,
    handler: (event) => notifyChange(deps, event),
    prefetch,
  });
}
