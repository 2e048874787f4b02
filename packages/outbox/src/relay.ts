/**
 * Publishes the events of write-once documents (history entries) that carry an `outbox` and an
 * `outboxPending` flag. Events are published with broker confirms, then the flag is cleared; a process
 * that dies in between leaves the flag set and the next pass (any replica) publishes them again:
 * at-least-once, so consumers are idempotent and drop versions they already have.
 */
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
}

interface PendingDocument {
  _id: unknown;
  outbox?: KnownEvent[];
}

export class OutboxRelay {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;

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

  private async drain(): Promise<void> {
    const batchSize = this.options.batchSize ?? 100;
    for (const collection of this.options.collections()) {
      for (;;) {
        const pending = (await collection
          .find({ outboxPending: true }, { projection: { outbox: 1 } })
          .sort({ _id: 1 })
          .limit(batchSize)
          .toArray()) as unknown as PendingDocument[];
        for (const document of pending) {
          for (const event of document.outbox ?? []) await this.options.bus.publish(event);
          await collection.updateOne({ _id: document._id } as never, { $set: { outboxPending: false } });
        }
        if (pending.length < batchSize) break;
      }
    }
  }
}
