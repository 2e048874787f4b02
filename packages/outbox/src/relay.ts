/**
 * Publishes the events of write-once documents (history entries) that carry an `outbox` and an
 * `outboxPending` flag. Events are published with broker confirms, then the flag is cleared; a process
 * that dies in between leaves the flag set and the next pass (any replica) publishes them again:
 * at-least-once, so consumers are idempotent and drop versions they already have.
 *
 * With `leases` (opt-in), several replicas publish each document once in the normal case: before publishing
 * a document a relay inserts the lease `<collection>:<document id>#<n>` (a unique `_id`, the one primitive
 * that is exclusive on FerretDB); a relay that finds the lease taken skips the document, unless the lease is
 * older than `leaseMs` (its holder died), in which case it claims generation n+1. Without `leases`, every
 * replica's pass may publish a pending document that another replica is publishing at the same moment.
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
  intervalMs?: number;
  batchSize?: number;
  /** A collection for publishing leases (recommended with more than one replica). */
  leases?: Collection;
  /** After this long a lease is presumed abandoned and another relay may publish (default 30 s). */
  leaseMs?: number;
}

const MAX_LEASE_GENERATIONS = 20;

interface PendingDocument {
  _id: unknown;
  outbox?: KnownEvent[];
}

export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  /** Identifies this relay's leases, so it may retry a document it holds after a failed publish. */
  private readonly holder = randomUUID();

  constructor(private readonly options: OutboxRelayOptions) {}

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.kick(), this.options.intervalMs ?? 1000);
    this.timer.unref();
    this.kick();
  }

  /** Publishes what is pending now; called right after a write so events leave without waiting a tick. */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .catch((error: unknown) => this.options.logger.warn({ err: (error as Error).message }, 'outbox relay pass failed; will retry'))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** One full pass; resolves when nothing that was pending is left (tests, shutdown). */
  async flush(): Promise<void> {
    if (this.running) await this.running;
    await this.drain();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    if (this.running) await this.running;
  }

  /** true when this relay may publish the document now (always, without a lease collection). */
  private async lease(collection: Collection, document: PendingDocument): Promise<boolean> {
    const leases = this.options.leases;
    if (!leases) return true;
    const leaseMs = this.options.leaseMs ?? 30_000;
    const base = `${collection.collectionName}:${String(document._id)}`;
    for (let generation = 1; generation <= MAX_LEASE_GENERATIONS; generation += 1) {
      try {
        await leases.insertOne({ _id: `${base}#${generation}` as never, at: new Date(), holder: this.holder });
        return true;
      } catch (error) {
        if ((error as { code?: unknown }).code !== 11000) throw error;
      }
      const held = await leases.findOne({ _id: `${base}#${generation}` as never });
      if (held?.holder === this.holder) return true;
      const at = held?.at instanceof Date ? held.at.getTime() : 0;
      if (Date.now() - at < leaseMs) return false;
    }
    return false;
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
          if (!(await this.lease(collection, document))) continue;
          for (const event of document.outbox ?? []) await this.options.bus.publish(event);
          await collection.updateOne({ _id: document._id } as never, { $set: { outboxPending: false } });
          published += 1;
        }
        // A full batch held by other relays: leave the rest to them and to the next pass.
        if (pending.length < batchSize || published === 0) break;
      }
    }
  }
}
