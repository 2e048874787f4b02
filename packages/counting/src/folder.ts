/**
 * Moves counts from Redis into the MongoDB totals (docs/decisions/0013), for the service that owns them.
 * Every tick, the replica holding the folder lease sweeps what is no longer needed (folds applied more
 * than `keepAppliedMs` ago, counted-once sets whose tokens expired), claims each interval that closed at
 * least `graceMs` ago as a numbered fold, and applies the pending folds to MongoDB in order, as many at
 * once as fit a bound on the counts held in memory (one write per grain for the whole batch, decision
 * 0015), marking each applied. A pass that fails (MongoDB or Redis down) leaves everything where it was;
 * the next tick carries on from there.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '@pilot/config';
import type { CountJournal, SweepCounts } from './journal';
import { subjectsOf } from './layout';
import type { Logger } from '@pilot/logging';
import type { Fold, TotalsStore } from './totals-store';

export interface CountFolderOptions {
  journal: CountJournal;
  totals: TotalsStore;
  clock: Clock;
  logger: Logger;
  tickMs: number;
  /** An interval is claimed this long after it ended: writers' clocks may be a little late. */
  graceMs: number;
  /** Applied folds stay readable this long, so a totals read never misses or doubles one. */
  keepAppliedMs: number;
  leaseMs: number;
}

/** How a service's folder paces itself: claim 2 s after an interval ends, keep applied folds 30 s. */
export const COUNT_FOLDING = { graceMs: 2_000, keepAppliedMs: 30_000, leaseMs: 15_000 };

/**
 * A pass reads pending folds until they hold this many grain x day x kind counts (at least one fold): about
 * 40 MB in memory at most, and a grain counted in several of them is written once.
 */
const MAX_COUNTS_PER_PASS = 400_000;

export interface FoldPass {
  /** False when another replica holds the lease. */
  held: boolean;
  claimed: number;
  applied: number;
  swept: SweepCounts;
}

export class CountFolder {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<FoldPass> | undefined;
  private readonly holder = randomUUID();

  constructor(private readonly options: CountFolderOptions) {}

  start(): void {
    this.timer = setInterval(() => {
      if (this.running) return; // the pass of an earlier tick is still at work
      this.foldNow().catch((error: unknown) => this.options.logger.warn({ err: (error as Error).message }, 'count folding failed; will retry'));
    }, this.options.tickMs);
    this.timer.unref();
  }

  /** One pass now (or the one running); `everything` claims open intervals too (tests, a final pass). */
  foldNow(everything = false): Promise<FoldPass> {
    if (!this.running) {
      this.running = this.pass(everything).finally(() => {
        this.running = undefined;
      });
    }
    return this.running;
  }

  /** Runs `work` holding the folder lease (waiting up to twice its length for it), so no fold runs beside it. */
  async exclusively<T>(work: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + 2 * this.options.leaseMs;
    while (!(await this.options.journal.holdLease(this.holder, this.options.leaseMs))) {
      if (Date.now() > deadline) throw new Error('the count folder lease stayed taken');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return work();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running?.catch(() => undefined);
    await this.options.journal.releaseLease(this.holder).catch(() => undefined);
  }

  private async pass(everything: boolean): Promise<FoldPass> {
    const { journal, totals, clock } = this.options;
    const none = { held: false, claimed: 0, applied: 0, swept: { folds: 0, hours: 0 } };
    if (!(await journal.holdLease(this.holder, this.options.leaseMs))) return none;
    // Redis that lost its data (no persistence) must not number new folds below what MongoDB applied.
    if (!(await journal.hasSequence())) await journal.seedSequence(await totals.highestFold());
    // Sweep first: a pass that falls behind must not keep expired counted-once sets alive.
    const swept = await journal.sweep(clock.now(), this.options.keepAppliedMs);
    const now = clock.now();
    let claimed = 0;
    const closed = await journal.closedIntervals(everything ? new Date(8.64e15) : now, everything ? 0 : this.options.graceMs);
    for (const interval of closed) if ((await journal.claim(interval)) !== null) claimed += 1;
    // A bounded pass, so the next one (and its sweep, and a lease check) comes soon even with a backlog.
    const batch: Fold[] = [];
    let countsInBatch = 0;
    for (const seq of await journal.pendingFolds()) {
      if (batch.length > 0 && countsInBatch >= MAX_COUNTS_PER_PASS) break;
      const counts = await journal.read(seq);
      batch.push({ seq, counts });
      for (const fields of counts.values()) countsInBatch += fields.size;
    }
    // A pass longer than the lease must not go on beside a replica that took over.
    const stillHeld = () => journal.holdLease(this.holder, this.options.leaseMs);
    if (batch.length === 0 || !(await stillHeld())) return { held: true, claimed, applied: 0, swept };
    const subjects = new Set<string>();
    for (const { counts } of batch) {
      for (const grain of counts.keys()) {
        const { campaignId, publisherId } = subjectsOf(grain);
        if (campaignId !== undefined) subjects.add(`c:${campaignId}`);
        if (publisherId !== undefined) subjects.add(`p:${publisherId}`);
      }
    }
    await totals.applyFolds(batch, await journal.owners([...subjects]), { stillHeld });
    for (const { seq } of batch) await journal.markApplied(seq, clock.now());
    const applied = batch.length;
    return { held: true, claimed, applied, swept };
  }
}
