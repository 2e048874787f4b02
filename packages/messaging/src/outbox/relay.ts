/**
 * Publishes the events of changes their writers left unfinished (pending-entries.ts): a writer that died
 * between its write and its publish, a broker that did not take the events, a projection write that failed.
 * A change's writer normally finishes it itself within milliseconds (the store publishes and marks it
 * finished), so a pass takes only the entries pending for longer than `pendingGraceMs`: for each it runs
 * the queue's `finish` (the store rolls the projection forward), publishes the events with broker confirms,
 * then marks the entry finished. A process that dies in between leaves the entry pending and a later pass
 * (any replica) does it again: at-least-once, so consumers are idempotent and drop versions they have.
 * The entries a pass finishes are marked finished together, one update per batch it read; a pass that
 * stops on a failure still marks the ones it published before it.
 *
 * With `leases` several replicas take each leftover once in the normal case: before publishing an entry a
 * relay inserts the lease `<collection>:<entry id>#<n>` (a unique `_id`, the one primitive that is exclusive
 * on FerretDB too); a relay that finds the lease taken skips the entry, unless the lease is older than
 * `leaseMs` (its holder died), in which case it claims generation n+1. Leases exist only for leftovers, and
 * the relay deletes those older than `leaseRetentionMs` (one deleteMany on the indexed `at`) at start and
 * every `leaseSweepIntervalMs`. Lease times, the sweep's cutoff and the grace all come from `clock`.
 */
import { randomUUID } from 'node:crypto';
import type { Bus } from '../bus';
import type { Logger } from '@pilot/platform';
import type { Collection } from 'mongodb';
import { markAllFinished, pendingBefore, type OutboxEntry, type OutboxQueue } from '@pilot/storage';

export interface OutboxRelayOptions {
  bus: Bus;
  /** Where the entries wait. */
  queues: () => OutboxQueue[];
  logger: Logger;
  /** How often a pass looks for leftovers (default 10 s). */
  intervalMs?: number;
  /** After a failed pass, the next one comes this soon (default 1 s), so an outage ends quickly. */
  retryMs?: number;
  batchSize?: number;
  /** A collection for publishing leases (recommended with more than one replica). */
  leases?: Collection;
  /** After this long a lease is presumed abandoned and another relay may publish (default 30 s). */
  leaseMs?: number;
  /** An entry is a leftover once it has been pending this long (default 5 s; its writer takes milliseconds). */
  pendingGraceMs?: number;
  /** Leases older than this are deleted by the lease sweep (default 1 hour; at least twice `leaseMs`). */
  leaseRetentionMs?: number;
  /** Time between lease sweeps after the one at start (default 10 minutes; 0: only at start). */
  leaseSweepIntervalMs?: number;
  /** The source of lease times, of the grace and of the sweep's cutoff (default: the system clock). */
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
  OUTBOX_PENDING_GRACE_MS: number;
  /** How often the service's retention sweeps run, when it declares the setting (the lease sweep follows it). */
  RETENTION_SWEEP_INTERVAL_MS?: number;
}

const MAX_LEASE_GENERATIONS = 20;
export const DEFAULT_LEASE_RETENTION_MS = 60 * 60 * 1000;
export const DEFAULT_LEASE_SWEEP_INTERVAL_MS = 10 * 60 * 1000;
export const DEFAULT_PENDING_GRACE_MS = 5_000;
const systemClock = { now: () => new Date() };

export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private sweepTimer: NodeJS.Timeout | undefined;
  private sweeping: Promise<number> | undefined;
  private leaseIndexReady = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  /** Identifies this relay's leases, so it may retry an entry it holds after a failed publish. */
  private readonly holder: string = randomUUID();

  constructor(private readonly options: OutboxRelayOptions) {}

  /** A service's relay over the repository that holds its outbox, with leases, from its settings. */
  static forSource(bus: Bus, source: OutboxSource, settings: OutboxSettings, logger: Logger, clock?: { now(): Date }): OutboxRelay {
    return new OutboxRelay({
      bus,
      queues: () => source.outboxQueues(),
      leases: source.outboxLeases(),
      leaseMs: settings.OUTBOX_LEASE_MS,
      pendingGraceMs: settings.OUTBOX_PENDING_GRACE_MS,
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
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    if (this.sweeping) await this.sweeping;
    if (this.running) await this.running;
  }

  /** The lease's `_id` when this relay may publish the entry now (always without a lease collection), null when another relay has it. */
  private async lease(queue: OutboxQueue, entryId: string): Promise<string | null> {
    const base = `${queue.entries.collectionName}:${entryId}`;
    const leases = this.options.leases;
    if (!leases) return base;
    const leaseMs = this.options.leaseMs ?? 30_000;
    for (let generation = 1; generation <= MAX_LEASE_GENERATIONS; generation += 1) {
      const id = `${base}#${generation}`;
      try {
        await leases.insertOne({ _id: id as never, at: this.now(), holder: this.holder });
        return id;
      } catch (error) {
        if ((error as { code?: unknown }).code !== 11000) throw error;
      }
      const held = await leases.findOne({ _id: id as never });
      if (held?.holder === this.holder) return id;
      const at = held?.at instanceof Date ? held.at.getTime() : 0;
      if (this.now().getTime() - at < leaseMs) return null;
    }
    return null;
  }

  private async drain(): Promise<void> {
    const batchSize = this.options.batchSize ?? 100;
    const graceMs = this.options.pendingGraceMs ?? DEFAULT_PENDING_GRACE_MS;
    for (const queue of this.options.queues()) {
      const cutoff = new Date(this.now().getTime() - graceMs);
      const skipped = new Set<string>();
      for (;;) {
        const entries = (await queue.entries
          .find({ ...pendingBefore(cutoff), ...(skipped.size > 0 ? { _id: { $nin: [...skipped] } } : {}) }, { projection: { outbox: 1, pendingSince: 1, entityId: 1, version: 1 } })
          .sort({ pendingSince: 1, _id: 1 })
          .limit(batchSize)
          .toArray()) as OutboxEntry[];
        const finished: string[] = [];
        try {
          for (const entry of entries) {
            if (await this.finishLeftover(queue, entry)) finished.push(entry._id);
            else skipped.add(entry._id);
          }
        } finally {
          if (finished.length > 0) await markAllFinished(queue.entries, finished);
        }
        if (entries.length < batchSize) break;
      }
    }
  }

  /** Finishes a leftover entry under a lease: its state brought up to date, its events published (the caller marks it finished). False when another relay holds it. */
  private async finishLeftover(queue: OutboxQueue, entry: OutboxEntry): Promise<boolean> {
    if (!(await this.lease(queue, entry._id))) return false;
    await queue.finish(entry);
    for (const event of entry.outbox ?? []) await this.options.bus.publish(event);
    return true;
  }
}
