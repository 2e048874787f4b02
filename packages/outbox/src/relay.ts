/**
 * Publishes the events of write-once documents (history entries) that carry an `outbox` and an
 * `outboxPending` flag. Events are published with broker confirms, then the flag is cleared; a process
 * that dies in between leaves the flag set and the next pass (any replica) publishes them again:
 * at-least-once, so consumers are idempotent and drop versions they already have.
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

export interface OutboxRelayOptions {
  bus: Bus;
  /** Collections whose documents carry `outbox` + `outboxPending`. */
  collections: () => Collection[];
  logger: Logger;
  /**
   * How often a pass looks for what nobody published (default 10 s): a writer that died before publishing,
   * another replica's leftovers. Each pass reads the pending documents, which on FerretDB is a scan.
   */
  intervalMs?: number;
  /** After a failed publish, the next pass comes this soon (default 1 s), so an outage ends quickly. */
  retryMs?: number;
  batchSize?: number;
  /** A collection for publishing leases (recommended with more than one replica). */
  leases?: Collection;
  /** After this long a lease is presumed abandoned and another relay may publish (default 30 s). */
  leaseMs?: number;
  /** Leases older than this are deleted by the lease sweep (default 1 hour; at least twice `leaseMs`). */
  leaseRetentionMs?: number;
  /** Time between lease sweeps after the one at start (default 10 minutes; 0: only at start). */
  leaseSweepIntervalMs?: number;
  /** The source of lease times and of the sweep's cutoff (default: the system clock). */
  clock?: { now(): Date };
}

/** A repository whose writes carry outbox events: where they are, and where their publishing leases go. */
export interface OutboxSource {
  outboxCollections(): Collection[];
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

interface PendingDocument {
  _id: unknown;
  outbox?: KnownEvent[];
}

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
  private readonly inHand = new Map<string, Promise<unknown>>();

  constructor(private readonly options: OutboxRelayOptions) {}

  /** A service's relay over the repository that holds its outbox, with leases, from its settings. */
  static forSource(bus: Bus, source: OutboxSource, settings: OutboxSettings, logger: Logger, clock?: { now(): Date }): OutboxRelay {
    return new OutboxRelay({
      bus,
      collections: () => source.outboxCollections(),
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
   * Publishes the events of one document just written (under a lease, like a pass) and clears its flag.
   * Resolves once the events are on the bus (or left pending for the next pass when they could not be
   * published); the flag is cleared after that, while the document stays in hand, because on FerretDB an
   * update scans the whole history and the caller need not wait for it. Does nothing while the relay is
   * not started.
   */
  async publishNow(collection: Collection, documentId: unknown, events: KnownEvent[]): Promise<void> {
    const key = inHandKey(collection, documentId);
    if (this.stopped || events.length === 0) return;
    const pass = this.inHand.get(key);
    if (pass) {
      await pass.catch(() => undefined); // a pass of this relay is publishing it already
      return;
    }
    // A holder of its own: a pass of this relay that listed the document before it was cleared must see
    // the lease as somebody else's, not re-enter it as it would to retry its own failed publish.
    const holder = `${this.holder}/now`;
    let leased: string | null = null;
    let announcePublished!: () => void;
    const publishedSignal = new Promise<void>((resolve) => {
      announcePublished = resolve;
    });
    let published = false;
    const work = this.holding(key, async () => {
      try {
        leased = await this.lease(collection, { _id: documentId }, holder);
        if (!leased) return;
        for (const event of events) await this.options.bus.publish(event);
        published = true;
        announcePublished();
        await collection.updateOne({ _id: documentId } as never, { $set: { outboxPending: false } });
      } catch (error) {
        if (published) {
          // On the bus already: the next pass publishes it once more, and consumers drop the duplicate.
          this.options.logger.warn({ err: (error as Error).message }, 'published events still flagged pending');
          return;
        }
        this.options.logger.warn({ err: (error as Error).message }, 'events left pending for the outbox relay');
        this.retrySoon();
        // Let the next pass take the document at once rather than after the lease expires.
        if (leased) await this.options.leases?.deleteOne({ _id: leased as never, holder }).catch(() => undefined);
      }
    });
    await Promise.race([publishedSignal, work]);
  }

  /** Runs `work` on one document, marked as in hand for its duration. */
  private async holding<T>(key: string, work: () => Promise<T>): Promise<T> {
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
    await Promise.allSettled([...this.inHand.values()]); // flags still being cleared after publishNow
  }

  /**
   * The lease's `_id` when `holder` may publish the document now (always, without a lease collection: then
   * the document's own key), null when another holder has it.
   */
  private async lease(collection: Collection, document: PendingDocument, holder = this.holder): Promise<string | null> {
    const base = `${collection.collectionName}:${String(document._id)}`;
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
    for (const collection of this.options.collections()) {
      for (;;) {
        const pending = (await collection
          .find({ outboxPending: true }, { projection: { outbox: 1 } })
          .sort({ _id: 1 })
          .limit(batchSize)
          .toArray()) as unknown as PendingDocument[];
        let published = 0;
        for (const document of pending) {
          const key = inHandKey(collection, document._id);
          if (this.inHand.has(key)) continue;
          const done = await this.holding(key, async () => {
            if (!(await this.lease(collection, document))) return false;
            for (const event of document.outbox ?? []) await this.options.bus.publish(event);
            await collection.updateOne({ _id: document._id } as never, { $set: { outboxPending: false } });
            return true;
          });
          if (done) published += 1;
        }
        // A full batch held by other relays: leave the rest to them and to the next pass.
        if (pending.length < batchSize || published === 0) break;
      }
    }
  }
}

function inHandKey(collection: Collection, documentId: unknown): string {
  return `${collection.collectionName}:${String(documentId)}`;
}
