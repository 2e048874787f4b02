/** The folder, which moves counts from Redis into the MongoDB totals under its lease (README.md). */
import { randomUUID } from 'node:crypto';
import type { Clock, Logger } from '@pilot/platform';
import type { FolderLease, FoldGuard } from './folder-lease';
import type { CountJournal } from './journal';
import type { TotalsStore } from './totals-store';

export interface CountFolderOptions {
  journal: CountJournal;
  totals: TotalsStore;
  clock: Clock;
  logger: Logger;
  tickMs: number;
  /** An interval is claimed this long after it ended: writers' clocks may be a little late. */
  graceMs: number;
  /** Applied folds stay readable this long, so that a read never misses or doubles one. */
  keepAppliedMs: number;
  leaseMs: number;
}

export const COUNT_FOLDING = { graceMs: 2_000, keepAppliedMs: 30_000, leaseMs: 15_000 };

/** A pass applies at most this many folds, GRAINS_PER_CHUNK grains at a time: what it holds stays the same whatever the backlog. */
const MAX_FOLDS_PER_PASS = 64;
const GRAINS_PER_CHUNK = 200;
/** How many times a pass renews the lease within each lease's length. */
const LEASE_RENEWALS = 5;

/** Whether a pass held the lease, and the folds it applied. */
export type FoldPass = { held: boolean; applied: number };

export class CountFolder {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<FoldPass> | undefined;
  private readonly holder = randomUUID();
  private readonly lease: FolderLease;

  constructor(private readonly options: CountFolderOptions) {
    this.lease = options.totals.lease(options.clock);
  }

  start(): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.foldNow().catch((error: unknown) => this.options.logger.warn({ err: (error as Error).message }, 'count folding failed; will retry'));
    }, this.options.tickMs);
    this.timer.unref();
  }

  /** One pass now (or the one running); `everything` claims open intervals too (tests, a final pass). */
  foldNow(everything = false): Promise<FoldPass> {
    this.running ??= this.pass(everything).finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running?.catch(() => undefined);
    await this.lease.release(this.holder).catch(() => undefined);
  }

  private async pass(everything: boolean): Promise<FoldPass> {
    const { journal, totals, clock, leaseMs } = this.options;
    const fence = await this.lease.hold(this.holder, leaseMs);
    if (fence === null) return { held: false, applied: 0 };
    // Sweep first: a pass that falls behind must not keep expired counted-once sets alive.
    await journal.sweep(clock.now(), this.options.keepAppliedMs);
    for (const interval of await journal.closedIntervals(everything ? new Date(8.64e15) : clock.now(), everything ? 0 : this.options.graceMs)) await journal.claim(interval);
    const seqs = await journal.pendingFolds(MAX_FOLDS_PER_PASS);
    if (seqs.length === 0) return { held: true, applied: 0 };
    // Renewed a few times per lease, not before every write: a write sent after the lease was lost anyway
    // matches nothing on a document the next holder wrote (the fence).
    let renewedAt = clock.now().getTime();
    const guard: FoldGuard = {
      fence,
      stillHeld: async () => {
        const at = clock.now().getTime();
        if (at - renewedAt < leaseMs / LEASE_RENEWALS) return true;
        const held = (await this.lease.hold(this.holder, leaseMs)) === fence;
        if (held) renewedAt = at;
        return held;
      },
    };
    // The next chunk is read from Redis while this one is written: two chunks held at most.
    const chunks = journal.chunksOf(seqs, GRAINS_PER_CHUNK);
    for (let reading = ahead(chunks.next()), chunk = await reading; !chunk.done; chunk = await reading) {
      reading = ahead(chunks.next());
      await totals.applyFolds(chunk.value.folds, chunk.value.owners, guard);
    }
    for (const seq of seqs) await journal.markApplied(seq, clock.now());
    return { held: true, applied: seqs.length };
  }
}

/** A read started ahead of its use: its failure is kept for the `await` that takes it, never unhandled meanwhile. */
function ahead<T>(read: Promise<T>): Promise<T> {
  read.catch(() => undefined);
  return read;
}
