/**
 * The durable queues of the system and the event types each one consumes (ARCHITECTURE.md, Events: work
 * that must happen once per event). The bus parks an event of one of these types when no queue receives it
 * (its consumer has not declared its queue yet, as on a first rollout) and the consumer takes it back once
 * it has; an event of any other type that no queue receives is dropped by the broker, as nothing waits for
 * it. A service that adds a durable subscription lists it here, so its events are parked until it runs.
 */
import type { EventType } from './registry';

export const DURABLE_CONSUMERS = {
  notification: [
    'campaign.submitted',
    'campaign.approved',
    'campaign.rejected',
    'campaign.activated',
    'campaign.paused',
    'publisher.submitted',
    'publisher.approved',
    'publisher.rejected',
    'publisher.paused',
  ],
} as const satisfies Record<string, readonly EventType[]>;

/** An event type some durable queue consumes; a durable subscription's types are of this type. */
export type DurablyConsumedEventType = (typeof DURABLE_CONSUMERS)[keyof typeof DURABLE_CONSUMERS][number];

/** The event types some durable queue consumes: the only ones the bus parks. */
export const DURABLY_CONSUMED_EVENT_TYPES: ReadonlySet<string> = new Set<string>(Object.values(DURABLE_CONSUMERS).flat());
