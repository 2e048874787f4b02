/**
 * Publishes the events of write-once documents (history entries) that carry an `outbox` and have a pending
 * marker (pending-markers.ts, docs/decisions/0014). A pass lists the markers (a small collection), loads
 * each entry by `_id`, publishes its events with broker confirms, then deletes the marker; a process that
 * dies in between leaves the marker and the next pass (any replica) publishes them again: at-least-once, so
 * consumers are idempotent and drop versions they already have. A marker whose entry does not exist
 * `pendingGraceMs` after its time is deleted: its writer died before the entry, so the change never happened.
 *
 * The writer normally publishes its document's events itself with publishNow(), right after the write
 * and before it answers, so a change is on the bus when the caller hears it was made; the periodic pass
 * publishes whatever that left pending (broker down, process died).
 *
 * With `leases` (opt-in), several replicas publish each document once in the normal case: before publishing
 * a document a relay inserts the lease `<collection>:<document id>#<n>` (a unique `_id`, the one primitive
 * that is exclusive on FerretDB); a relay that finds the lease taken skips the document, unless the lease is
 * older than `leaseMs` (its holder died), in which case it claims generation n+1. Without `leases`, every
 * replica's pass may publish a pending document that another replica is publishing at the same moment.
 *
 * Leases are one document per published entry, so the relay also deletes old ones (docs/decisions/0011):
 * at start and every `leaseSweepIntervalMs`, ONE deleteMany of the leases whose `at` is older than
 * `leaseRetentionMs` (1 hour, never less than twice `leaseMs`). A lease older than `leaseMs` excludes
 * nobody any more; by then its entry has been published in all but the rarest case (events pending for an
 * hour), and even then deleting it costs at most one duplicate publish, which consumers tolerate.
 * Lease times and the sweep's cutoff both come from the injectable `clock`.
 */
import { randomUUID } from 'node:crypto';
import type { Bus } from '@pilot/bus';
import type { KnownEvent } from '@pilot/contracts';
import type { Logger } from '@pilot/logging';
import type { Collection } from 'mongodb';
import type { OutboxQueue, PendingMarker } from './pending-markers';

export interface OutboxRelayOptions {
  bus: Bus;
  /** Where the events wait: entries carrying `outbox` and the markers of those not yet published. */
  queues: () => OutboxQueue[];
  logger: Logger;
  /**
   * How often a pass looks for what nobody published (default 10 s): a writer that died before publishing,
   * another replica's leftovers. Each pass reads the markers, a collection that is nearly empty.
   */
  intervalMs?: number;
  /** After a failed publish, the next pass comes this soon (default 1 s), so an outage ends quickly. */
  retryMs?: number;
  batchSize?: number;
  /** A collection for publishing leases (recommended with more than one replica). */
  leases?: Collection;
  /** After this long a lease is presumed abandoned and another relay may publish (default 30 s). */
  leaseMs?: number;
  /**
   * A marker whose entry is still missing this long after its time is deleted (default twice `leaseMs`):
   * its writer died or lost the race for that version between the marker and the entry.
   */
  pendingGraceMs?: number;
  /** Leases older than this are deleted by the lease sweep (default 1 hour; at least twice `leaseMs`). */
  leaseRetentionMs?: number;
  /** Time between lease sweeps after the one at start (default 10 minutes; 0: only at start). */
  leaseSweepIntervalMs?: number;
  /** The source of lease times and of the sweep's cutoff (default: the system clock). */
  clock?: { now(): Date };
}

/** A repository whose writes carry outbox events: where they wait, and where their publishing leases go. */
export interface OutboxSource {
  outboxQueues(): OutboxQueue[];
  outboxLeases(): Collection;
}

/** The relay settings every service with an outbox reads from its environment. */
export interface OutboxSettings {
  OUTBOX_LEASE_MS: number;
  OUTBOX_RELAY_INTERVAL_MS: number;
  /** How often the service's retention sweeps run, when it declares the setting (the lease sweep follows it). */
  RETENTION_SWEEP_INTERVAL_MS?: number;
}

const MAX_LEASE_GENERATIONS = 20;
export const DEFAULT_LEASE_RETENTION_MS = 60 * 60 * 1000;
export const DEFAULT_LEASE_SWEEP_INTERVAL_MS = 10 * 60 * 1000;
const systemClock = { now: () => new Date() };

/**
 * What became of a pending entry in hand: its events are on the bus, its marker was swept (no entry), or
 * it is left for later (held by another relay, its entry not written yet, or the publish failed).
 */
type Outcome = 'published' | 'swept' | 'left';

/** How long publishNow waits for another relay that holds the entry to publish it before saying "pending". */
const OTHER_HOLDER_WAIT_MS = 2_000;

export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping: Promise<number> | undefined;
  private leaseIndexReady = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  /** Identifies this relay's leases, so it may retry a document it holds after a failed publish. */
  private readonly holder: string = randomUUID();
  /** Documents this process is publishing right now (a pass or publishNow), which the other must leave alone. */
  private readonly inHand = new Map<string, Promise<Outcome>>();

  constructor(private readonly options: OutboxRelayOptions) {}

  /** A service's relay over the repository that holds its outbox, with leases, from its settings. */
  static forSource(bus: Bus, source: OutboxSource, settings: OutboxSettings, logger: Logger, clock?: { now(): Date }): OutboxRelay {
    return new OutboxRelay({
      bus,
      queues: () => source.outboxQueues(),
      leases: source.outboxLeases(),
      leaseMs: settings.OUTBOX_LEASE_MS,
      // Read only when declared: a service's settings object refuses to read an undeclared setting.
      leaseSweepIntervalMs: 'RETENTION_SWEEP_INTERVAL_MS' in settings ? settings.RETENTION_SWEEP_INTERVAL_MS : undefined,
      logger,
      intervalMs: settings.OUTBOX_RELAY_INTERVAL_MS,
      clock,
    });
  }

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.kick(), this.options.intervalMs ?? 10_000);
    this.timer.unref();
    this.kick();
    if (this.options.leases) {
      void this.sweepLeases();
      const sweepMs = this.options.leaseSweepIntervalMs ?? DEFAULT_LEASE_SWEEP_INTERVAL_MS;
      if (sweepMs > 0) {
        this.sweepTimer = setInterval(() => void this.sweepLeases(), sweepMs);
        this.sweepTimer.unref();
      }
    }
  }

  /**
   * Deletes the leases older than the lease retention, in one deleteMany on the indexed `at`; the number
   * deleted. A failure is logged (0 deleted) and the next interval tries again; it never throws.
   */
  sweepLeases(): Promise<number> {
    if (this.sweeping) return this.sweeping;
    this.sweeping = this.sweepLeasesOnce().finally(() => {
      this.sweeping = undefined;
    });
    return this.sweeping;
  }

  private async sweepLeasesOnce(): Promise<number> {
    const leases = this.options.leases;
    if (!leases) return 0;
    const leaseMs = this.options.leaseMs ?? 30_000;
    const keepMs = Math.max(this.options.leaseRetentionMs ?? DEFAULT_LEASE_RETENTION_MS, 2 * leaseMs);
    try {
      if (!this.leaseIndexReady) {
        await leases.createIndex({ at: 1 });
        this.leaseIndexReady = true;
      }
      const cutoff = new Date(this.now().getTime() - keepMs);
      const { deletedCount } = await leases.deleteMany({ at: { $lt: cutoff } });
      if (deletedCount > 0) this.options.logger.info({ collection: leases.collectionName, deleted: deletedCount }, 'old outbox leases deleted');
      return deletedCount;
    } catch (error) {
      this.options.logger.warn(
        { collection: leases.collectionName, err: (error as Error).message },
        'outbox lease sweep failed; will retry at the next interval',
      );
      return 0;
    }
  }

  private now(): Date {
    return (this.options.clock ?? systemClock).now();
  }

  /** Publishes what is pending now; called right after a write so events leave without waiting a tick. */
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

  /**
   * Publishes the events of one entry just written (under a lease, like a pass) and deletes its marker.
   * Resolves once the events are on the bus, with true, or with false when they are left pending (the
   * broker is unreachable, another replica's relay holds the entry, or the relay is not started): the caller
   * must not claim the change is in effect. The marker is deleted after that, while the entry stays in hand,
   * so the caller does not wait for the delete.
   */
  async publishNow(queue: OutboxQueue, entryId: string, events: KnownEvent[]): Promise<boolean> {
    const key = inHandKey(queue, entryId);
    if (events.length === 0) return true;
    if (this.stopped) return false;
    // A pass of this relay may have it in hand already; it may also have found no entry yet (the marker is
    // written before the entry) and left it, which this call must not take for published.
    for (let pass = this.inHand.get(key); pass; pass = this.inHand.get(key)) {
      if ((await pass.catch(() => 'left')) === 'published') return true;
    }
    // A holder of its own: a pass of this relay that listed the marker before it was deleted must see the
    // lease as somebody else's, not re-enter it as it would to retry its own failed publish.
    const holder = `${this.holder}/now`;
    let leased: string | null = null;
    let announcePublished!: () => void;
    const publishedSignal = new Promise<void>((resolve) => {
      announcePublished = resolve;
    });
    let published = false;
    const work = this.holding(key, async (): Promise<Outcome> => {
      try {
        leased = await this.lease(queue, entryId, holder);
        // Another replica's pass holds it: published once that relay deletes the marker, usually at once.
        if (!leased) return (await this.markerGoneWithin(queue, entryId, OTHER_HOLDER_WAIT_MS)) ? 'published' : 'left';
        for (const event of events) await this.options.bus.publish(event);
        published = true;
        announcePublished();
        await queue.pending.deleteOne({ _id: entryId });
        return 'published';
      } catch (error) {
        if (published) {
          // On the bus already: the next pass publishes it once more, and consumers drop the duplicate.
          this.options.logger.warn({ err: (error as Error).message }, 'published events still marked pending');
          return 'published';
        }
        this.options.logger.warn({ err: (error as Error).message }, 'events left pending for the outbox relay');
        this.retrySoon();
        // Let the next pass take the entry at once rather than after the lease expires.
        if (leased) await this.options.leases?.deleteOne({ _id: leased as never, holder }).catch(() => undefined);
        return 'left';
      }
    });
    const outcome = await Promise.race([publishedSignal.then(() => 'published' as const), work]);
    return outcome === 'published';
  }

  /** True when the entry's marker is deleted (its events published by another relay) within `ms`. */
  private async markerGoneWithin(queue: OutboxQueue, entryId: string, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    for (;;) {
      if (!(await queue.pending.findOne({ _id: entryId }, { projection: { _id: 1 } }))) return true;
      if (Date.now() >= deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  /** Runs `work` on one entry, marked as in hand for its duration. */
  private async holding(key: string, work: () => Promise<Outcome>): Promise<Outcome> {
    const running = work();
    this.inHand.set(key, running);
    try {
      return await running;
    } finally {
      this.inHand.delete(key);
    }
  }

  /** One full pass; resolves when nothing that was pending is left (tests, shutdown). */
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
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.sweeping) await this.sweeping;
    if (this.running) await this.running;
    await Promise.allSettled([...this.inHand.values()]); // markers still being deleted after publishNow
  }

  /**
   * The lease's `_id` when `holder` may publish the entry now (always, without a lease collection: then
   * the entry's own key), null when another holder has it.
   */
  private async lease(queue: OutboxQueue, entryId: string, holder = this.holder): Promise<string | null> {
    const base = inHandKey(queue, entryId);
    const leases = this.options.leases;
    if (!leases) return base;
    const leaseMs = this.options.leaseMs ?? 30_000;
    for (let generation = 1; generation <= MAX_LEASE_GENERATIONS; generation += 1) {
      const id = `${base}#${generation}`;
      try {
        await leases.insertOne({ _id: id as never, at: this.now(), holder });
        return id;
      } catch (error) {
        if ((error as { code?: unknown }).code !== 11000) throw error;
      }
      const held = await leases.findOne({ _id: id as never });
      if (held?.holder === holder) return id;
      const at = held?.at instanceof Date ? held.at.getTime() : 0;
      if (this.now().getTime() - at < leaseMs) return null;
    }
    return null;
  }

  private async drain(): Promise<void> {
    const batchSize = this.options.batchSize ?? 100;
    for (const queue of this.options.queues()) {
      for (;;) {
        const markers: PendingMarker[] = await queue.pending.find({}).sort({ at: 1, _id: 1 }).limit(batchSize).toArray();
        let settled = 0;
        for (const marker of markers) {
          const key = inHandKey(queue, marker._id);
          if (this.inHand.has(key)) continue;
          if ((await this.holding(key, () => this.publishMarked(queue, marker))) !== 'left') settled += 1;
        }
        // A full batch held by other relays or awaiting its entries: leave the rest to the next pass.
        if (markers.length < batchSize || settled === 0) break;
      }
    }
  }

  /** Publishes the events of a marked entry and deletes the marker. */
  private async publishMarked(queue: OutboxQueue, marker: PendingMarker): Promise<Outcome> {
    const byId = [{ _id: marker._id as never }, { projection: { outbox: 1 } }] as const;
    const markedAt = marker.at instanceof Date ? marker.at.getTime() : 0;
    const graceMs = this.options.pendingGraceMs ?? 2 * (this.options.leaseMs ?? 30_000);
    const young = this.now().getTime() - markedAt < graceMs;
    // A young marker's entry, once written, has its copy; the history is read (a scan up to the entry on
    // FerretDB, all of it for a miss) only once the grace has passed: the copy may have expired or failed.
    let entry = (await queue.recentEntries.findOne(...byId)) as { outbox?: KnownEvent[] } | null;
    if (!entry && young) return 'left';
    entry ??= (await queue.entries.findOne(...byId)) as { outbox?: KnownEvent[] } | null;
    if (!entry) {
      // Its writer never inserted the entry (it died, or lost the race for the version).
      await queue.pending.deleteOne({ _id: marker._id });
      return 'swept';
    }
    if (!(await this.lease(queue, marker._id))) return 'left';
    for (const event of entry.outbox ?? []) await this.options.bus.publish(event);
    await queue.pending.deleteOne({ _id: marker._id });
    return 'published';
  }
}

/** Names an entry across queues: for leases, and for what this process has in hand. */
function inHandKey(queue: OutboxQueue, entryId: string): string {
  return `${queue.entries.collectionName}:${entryId}`;
}
