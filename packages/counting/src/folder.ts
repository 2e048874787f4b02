/**
 * Moves counts from Redis into the MongoDB totals (docs/counting.md). Every tick, the replica holding the
 * folder lease (folder-lease.ts) sweeps what is no longer needed, claims each interval that closed at
 * least `graceMs` ago as a fold numbered by the interval, and applies the pending folds, several at once,
 * grain chunk by grain chunk, marking each applied. A pass that fails leaves everything where it was.
 */
import { randomUUID } from 'node:crypto';
import type { Clock, Logger } from '@pilot/platform';
import { isBreakdownGrain } from './breakdown-layout';
import type { CountJournal, Fold, SweepCounts } from './journal';
import { subjectsOf } from './layout';
import { checkHeld, type FolderLease, type FoldGuard } from './folder-lease';
import type { TotalsStore } from './totals-store';

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

/** A pass applies at most this many folds, walking their grains GRAINS_PER_CHUNK at a time: it holds one chunk's counts, whatever the backlog. */
const MAX_FOLDS_PER_PASS = 64;
const GRAINS_PER_CHUNK = 200;
/** How many times a pass renews the lease within each lease's length. */
const LEASE_RENEWALS = 5;
/** The pass's set of grains outlives a folder that died by this much (renewed at every chunk). */
const GATHERED_GRAINS_MS = 10 * 60_000;

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
  private readonly lease: FolderLease;

  constructor(private readonly options: CountFolderOptions) {
    this.lease = options.totals.lease(options.clock);
  }

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

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running?.catch(() => undefined);
    await this.lease.release(this.holder).catch(() => undefined);
  }

  private async pass(everything: boolean): Promise<FoldPass> {
    const { journal, totals, clock } = this.options;
    const none = { held: false, claimed: 0, applied: 0, swept: { folds: 0, hours: 0 } };
    const fence = await this.lease.hold(this.holder, this.options.leaseMs);
    if (fence === null) return none;
    await totals.migrateOnce(fence);
    const state = await totals.readState();
    // Sweep first: a pass that falls behind must not keep expired counted-once sets alive.
    const swept = await journal.sweep(clock.now(), this.options.keepAppliedMs);
    const now = clock.now();
    let claimed = 0;
    const closed = await journal.closedIntervals(everything ? new Date(8.64e15) : now, everything ? 0 : this.options.graceMs);
    for (const interval of closed) if ((await journal.claim(interval)) !== null) claimed += 1;
    // A bounded pass, so the next one (and its sweep, and a lease check) comes soon even with a backlog.
    const seqs = await journal.pendingFolds(MAX_FOLDS_PER_PASS);
    // A pass longer than the lease must not go on beside a replica that took over. The lease is renewed a
    // few times per lease, not before every write: a write that goes out after the lease was lost anyway
    // matches nothing on a document the next holder wrote (the fence).
    let renewedAt = clock.now().getTime();
    const guard: FoldGuard = {
      fence,
      stillHeld: async () => {
        const at = clock.now().getTime();
        if (at - renewedAt < this.options.leaseMs / LEASE_RENEWALS) return true;
        const held = (await this.lease.hold(this.holder, this.options.leaseMs)) === fence;
        if (held) renewedAt = at;
        return held;
      },
    };
    if (seqs.length === 0 || !(await guard.stillHeld())) return { held: true, claimed, applied: 0, swept };
    const through = Math.max(...seqs);
    // The grains of the batch, a chunk at a time: what the pass holds stays the same whatever the backlog.
    // The next chunk is read from Redis while the current one is written (two chunks held at most).
    const readChunk = async (from: string): Promise<Chunk> => {
      const [next, scanned]: [string, string[]] = await journal.scanGrains(from, GRAINS_PER_CHUNK, GATHERED_GRAINS_MS);
      // The breakdown grains are Redis' alone: the day documents hold their counts already.
      const grains = scanned.filter((grain) => !isBreakdownGrain(grain));
      if (grains.length === 0) return { next, folds: [], owners: new Map() };
      return { next, folds: await journal.readGrains(seqs, grains), owners: await journal.owners(subjectsOfGrains(grains)) };
    };
    let reading = (await journal.gatherGrains(seqs, GATHERED_GRAINS_MS)) > 0 ? ahead(readChunk('0')) : null;
    while (reading !== null) {
      const { next, folds, owners } = await reading;
      reading = next === '0' ? null : ahead(readChunk(next));
      if (folds.length === 0) continue;
      await checkHeld(guard);
      await totals.applyFolds(folds, owners, { guard, state, through });
    }
    await journal.forgetGatheredGrains();
    for (const seq of seqs) await journal.markApplied(seq, clock.now());
    return { held: true, claimed, applied: seqs.length, swept };
  }
}

interface Chunk {
  /** The scan's cursor after this chunk ('0': the last one). */
  next: string;
  folds: Fold[];
  owners: Map<string, string>;
}

/** A read started ahead of its use: a failure is kept for the `await` that takes it, never unhandled meanwhile. */
function ahead<T>(read: Promise<T>): Promise<T> {
  read.catch(() => undefined);
  return read;
}

/** The campaigns and publishers (`c:<id>`, `p:<id>`) the grains are about, for their owners. */
function subjectsOfGrains(grains: string[]): string[] {
  const subjects = new Set<string>();
  for (const grain of grains) {
    const { campaignId, publisherId } = subjectsOf(grain);
    if (campaignId !== undefined) subjects.add(`c:${campaignId}`);
    if (publisherId !== undefined) subjects.add(`p:${publisherId}`);
  }
  return [...subjects];
}
