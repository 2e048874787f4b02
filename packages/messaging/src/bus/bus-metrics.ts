/**
 * The bus's counters, in the service's registry when it gives one (none in tools and most tests).
 * Label values are bounded: event types come from the contracts, queues from the subscriptions.
 */
import { Counter, Gauge, type Registry } from 'prom-client';

export type SubscriptionKind = 'durable' | 'broadcast';

export class BusMetrics {
  readonly consumed: Counter<'event_type' | 'subscription'>;
  readonly rejected: Counter<'reason' | 'subscription'>;
  readonly deadLettered: Counter<'queue'>;
  readonly publishFailures: Counter<'event_type'>;
  readonly parked: Counter<'event_type'>;

  constructor(
    private readonly registry: Registry | undefined,
    private readonly depths: { deadLetterDepths: () => Promise<Map<string, number>>; parkedDepths: () => Promise<Map<string, number>> },
  ) {
    const registers = registry ? [registry] : [];
    this.consumed = new Counter({
      name: 'pilot_bus_events_consumed_total',
      help: 'Events handled successfully, by type and kind of subscription',
      labelNames: ['event_type', 'subscription'],
      registers,
    });
    this.rejected = new Counter({
      name: 'pilot_bus_events_rejected_total',
      help: 'Events not handled: malformed, or their handler failed (returned to the queue or dropped)',
      labelNames: ['reason', 'subscription'],
      registers,
    });
    this.deadLettered = new Counter({
      name: 'pilot_bus_events_dead_lettered_total',
      help: 'Events this process sent to the dead-letter queue (malformed, or failed at the delivery limit)',
      labelNames: ['queue'],
      registers,
    });
    this.publishFailures = new Counter({
      name: 'pilot_bus_publish_failures_total',
      help: 'Publishes that failed (broker unreachable, not confirmed, unroutable and not parked)',
      labelNames: ['event_type'],
      registers,
    });
    this.parked = new Counter({
      name: 'pilot_bus_events_parked_total',
      help: 'Events this process parked because no queue received them (a durable consumer has not declared its queue)',
      labelNames: ['event_type'],
      registers,
    });
    if (registry) {
      this.registerDepth('pilot_bus_dead_letter_messages', "Messages waiting in the dead-letter queue of each of this service's durable subscriptions", 'queue', this.depths.deadLetterDepths);
      this.registerDepth('pilot_bus_parked_messages', 'Events waiting parked for their durable consumer, by type (the broker\'s count)', 'event_type', this.depths.parkedDepths);
    }
  }

  private registerDepth(name: string, help: string, label: string, depths: () => Promise<Map<string, number>>): void {
    new Gauge({
      name,
      help,
      labelNames: [label],
      registers: this.registry ? [this.registry] : [],
      async collect() {
        this.reset();
        try {
          for (const [value, depth] of await depths()) this.set({ [label]: value }, depth);
        } catch {
          // Broker away: the series is missing from this scrape; readiness already says why.
        }
      },
    });
  }
}
