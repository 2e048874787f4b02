/**
 * Finishes the changes their writers left unfinished (pending-changes.ts of `@pilot/storage`): a writer that
 * died between its guarded write and its history insert or publish, a broker that did not take the events.
 * A writer finishes its change itself within milliseconds, so a pass takes only the records with changes
 * pending for longer than `pendingGraceMs`. For each it takes the record with one atomic update of its
 * document (`relayLeaseUntil`, `leaseMs` ahead: another relay skips it until then, or takes it over once a
 * relay that died let it lapse), writes the history entries (an entry written before stays as it is),
 * publishes the events in version order with broker confirms, then removes the finished changes. A process
 * that dies in between leaves them pending and a later pass (any replica) does it again: at-least-once, so
 * consumers are idempotent and drop versions they have.
 *
 * An event that fails its contract (an event type renamed or tightened while changes were pending) would
 * fail every pass: it is parked (`parked_events`, `pilot_outbox_events_parked_total`, a log line at error)
 * and the events behind it go out. Lease times and the grace come from `clock`.
 */
import { randomUUID } from 'node:crypto';
import type { Bus } from '../bus';
import type { Logger } from '@pilot/platform';
import { InvalidEventError, type KnownEvent } from '@pilot/contracts';
import type { ClaimedRecord, OutboxQueue, PendingChange, RecordId } from '@pilot/storage';
import { Counter, type Registry } from 'prom-client';

export interface OutboxRelayOptions {
  bus: Bus;
  /** Where the unfinished changes wait. */
  queues: () => OutboxQueue[];
  logger: Logger;
  /** How often a pass looks for leftovers (default 10 s). */
  intervalMs?: number;
  /** After a failed pass, the next one comes this soon (default 1 s), so an outage ends quickly. */
  retryMs?: number;
  batchSize?: number;
  /** How long a relay holds a record it finishes before another may take it over (default 30 s). */
  leaseMs?: number;
  /** A change is a leftover once it has been pending this long (default 5 s; its writer takes milliseconds). */
  pendingGraceMs?: number;
  /** The source of lease times and of the grace (default: the system clock). */
  clock?: { now(): Date };
  /** The service's metrics registry, for `pilot_outbox_events_parked_total`. */
  metrics?: Registry;
}

/** A repository whose writes carry outbox events: where they wait. */
export interface OutboxSource {
  outboxQueues(): OutboxQueue[];
}

/** The relay settings every service with an outbox reads from its environment. */
export interface OutboxSettings {
  OUTBOX_LEASE_MS: number;
  OUTBOX_RELAY_INTERVAL_MS: number;
  OUTBOX_PENDING_GRACE_MS: number;
}

export const DEFAULT_PENDING_GRACE_MS = 5_000;
const systemClock = { now: () => new Date() };

export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private readonly parkedTotal: Counter<'collection' | 'event_type'>;
  /** Identifies this relay's holds, so it may take again at once a record whose finish failed. */
  private readonly holder: string = randomUUID();

  constructor(private readonly options: OutboxRelayOptions) {
    this.parkedTotal = new Counter({
      name: 'pilot_outbox_events_parked_total',
      help: 'Outbox events parked in parked_events because they fail their contract (never published)',
      labelNames: ['collection', 'event_type'],
      registers: options.metrics ? [options.metrics] : [],
    });
  }

  /** A service's relay over the repository that holds its outbox, from its settings. */
  static forSource(bus: Bus, source: OutboxSource, settings: OutboxSettings, logger: Logger, clock?: { now(): Date }, metrics?: Registry): OutboxRelay {
    return new OutboxRelay({
      bus,
      queues: () => source.outboxQueues(),
      leaseMs: settings.OUTBOX_LEASE_MS,
      pendingGraceMs: settings.OUTBOX_PENDING_GRACE_MS,
      logger,
      intervalMs: settings.OUTBOX_RELAY_INTERVAL_MS,
      clock,
      metrics,
    });
  }

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.kick(), this.options.intervalMs ?? 10_000);
    this.timer.unref();
    this.kick();
  }

  private now(): Date {
    return (this.options.clock ?? systemClock).now();
  }

  /** A pass now (or right after the one running). */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .catch((error: unknown) => {
        this.options.logger.warn({ err: (error as Error).message }, 'outbox relay pass failed; will retry');
        this.retrySoon();
      })
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** One full pass; resolves when every leftover found is finished (tests, shutdown). */
  async flush(): Promise<void> {
    if (this.running) await this.running;
    await this.drain();
  }

  /** One pass soon, rather than at the next interval. */
  private retrySoon(): void {
    if (this.stopped || this.retryTimer) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.kick();
    }, this.options.retryMs ?? 1000);
    this.retryTimer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.running) await this.running;
  }

  private async drain(): Promise<void> {
    const batchSize = this.options.batchSize ?? 100;
    const graceMs = this.options.pendingGraceMs ?? DEFAULT_PENDING_GRACE_MS;
    const leaseMs = this.options.leaseMs ?? 30_000;
    for (const queue of this.options.queues()) {
      const cutoff = new Date(this.now().getTime() - graceMs);
      const seen: RecordId[] = [];
      for (;;) {
        const ids = await queue.leftovers(cutoff, batchSize, seen);
        for (const id of ids) {
          seen.push(id);
          const now = this.now();
          const record = await queue.claim(id, cutoff, { holder: this.holder, now, until: new Date(now.getTime() + leaseMs) });
          if (record) await this.finishOrLetGo(queue, record);
        }
        if (ids.length < batchSize) break;
      }
    }
  }

  private async finishOrLetGo(queue: OutboxQueue, record: ClaimedRecord): Promise<void> {
    try {
      await this.finish(queue, record);
    } catch (error) {
      await queue.letGo(record).catch(() => undefined); // otherwise its hold lapses after leaseMs
      throw error;
    }
  }

  /** Finishes a record this relay holds: history entries, events in version order (the invalid ones parked), then the removal. */
  private async finish(queue: OutboxQueue, record: ClaimedRecord): Promise<void> {
    await queue.writeHistory(record);
    for (const change of record.pending) {
      for (const event of change.events) {
        try {
          await this.options.bus.publish(event);
        } catch (error) {
          if (!(error instanceof InvalidEventError)) throw error;
          await this.park(queue, record, change, event, error);
        }
      }
    }
    await queue.release(record);
  }

  private async park(queue: OutboxQueue, record: ClaimedRecord, change: PendingChange, event: KnownEvent, error: InvalidEventError): Promise<void> {
    await queue.park(record, change, event, error.message, this.now());
    const collection = queue.entries.collectionName;
    const eventType = typeof event?.type === 'string' ? event.type : 'unknown';
    this.parkedTotal.inc({ collection, event_type: eventType });
    this.options.logger.error(
      { collection, recordId: record._id, version: change.version, eventId: event?.id, eventType, problem: error.message },
      'outbox event fails its contract: parked in parked_events, the next events go on',
    );
  }
}
