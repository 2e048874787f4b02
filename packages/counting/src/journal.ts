/**
 * The folder's side of the pipeline in Redis: claiming closed intervals as numbered folds, gathering a
 * batch's grains and reading their counts a chunk at a time, marking folds applied, sweeping what is no
 * longer needed. What a fold is applied to (MongoDB), and the lease that lets one folder write at a time
 * (kept in MongoDB, folder-lease.ts), are the caller's business.
 */
import type { Redis } from 'ioredis';
import { CountKeys, GRAINS_SUFFIX } from './layout';
import { countCommandsOn, pairsToMap, type CountCommands } from './lua-commands';
import { hourOf, ONCE_MARGIN_MS } from './once-sets';

/** A fold's counts: grain -> field (`<day>|<kind>`) -> count. */
export type FoldCounts = Map<string, Map<string, number>>;

/** A claimed fold: its number and its counts (all of them, or those of some grains). */
export interface Fold {
  seq: number;
  counts: FoldCounts;
}

export interface SweepCounts {
  folds: number;
  hours: number;
}

/** Hash reads of one readGrains call at most (grains x folds). */
const HASHES_PER_READ = 2_000;
/** Applied folds one sweep call deletes at most. */
const FOLDS_PER_SWEEP = 2;

export class CountJournal {
  readonly keys: CountKeys;
  private readonly commands: CountCommands;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = new CountKeys(prefix);
    this.commands = countCommandsOn(redis);
  }

  /** Intervals holding unclaimed counts that ended at least `graceMs` before `now`, oldest first. */
  async closedIntervals(now: Date, graceMs: number): Promise<number[]> {
    return (await this.redis.zrangebyscore(this.keys.openIntervals, '-inf', now.getTime() - graceMs)).map(Number);
  }

  /** The oldest interval still open or claimed but not applied, for the pipeline's lag; null when none. */
  async oldestUnapplied(): Promise<{ interval: number | null; folds: number }> {
    const [oldest, folds] = await Promise.all([this.redis.zrange(this.keys.openIntervals, 0, 0), this.redis.zcard(this.keys.pendingFolds)]);
    return { interval: oldest[0] === undefined ? null : Number(oldest[0]), folds };
  }

  /**
   * Claims an interval as a fold numbered by the interval (or just above the last fold, for an interval a
   * late writer reopened): the same interval claimed again by a Redis that went back in time gets the same
   * number, which the documents that hold it skip. Its number, or null when it held nothing.
   */
  async claim(interval: number): Promise<number | null> {
    const seq = Number(
      await this.commands.claimInterval(this.keys.openIntervals, this.keys.pendingFolds, this.keys.foldSequence, interval, this.keys.intervalPrefix(interval), `${this.keys.base}f:`),
    );
    return seq > 0 ? seq : null;
  }

  /** Claimed folds not yet applied, in the order they must be applied (at most `limit`). */
  async pendingFolds(limit = -1): Promise<number[]> {
    return (await this.redis.zrange(this.keys.pendingFolds, 0, limit < 0 ? -1 : limit - 1)).map(Number);
  }

  /**
   * Gathers the grains these folds counted into one set in Redis, to be walked with `scanGrains` (it
   * expires after `ms`, should the folder die). The number of grains.
   */
  async gatherGrains(seqs: number[], ms: number): Promise<number> {
    await this.redis.del(this.keys.passGrains);
    let count = 0;
    for (const seq of seqs) count = Number(await this.commands.gatherGrains(this.keys.passGrains, `${this.keys.base}f:`, seq, ms));
    return count;
  }

  /**
   * A step through the gathered grains: the next cursor ('0' at the end) and about `count` grains; the
   * set's life is renewed to `ms`. Throws when the set is gone (expired, or Redis lost it), rather than
   * end the walk early.
   */
  async scanGrains(cursor: string, count: number, ms: number): Promise<[string, string[]]> {
    const step = await this.commands.scanGrains(this.keys.passGrains, cursor, count, ms);
    if (!step) throw new Error('the grains gathered for the pass are gone');
    return step;
  }

  async forgetGatheredGrains(): Promise<void> {
    await this.redis.del(this.keys.passGrains);
  }

  /** What these folds counted for these grains, fold by fold (a fold without them is left out). */
  async readGrains(seqs: number[], grains: string[]): Promise<Fold[]> {
    if (seqs.length === 0 || grains.length === 0) return [];
    // A few thousand hash reads a call at most, so that no call holds Redis long.
    const step = Math.max(1, Math.floor(HASHES_PER_READ / seqs.length));
    const flat: [string, number, string[]][] = [];
    for (let start = 0; start < grains.length; start += step) {
      const slice = grains.slice(start, start + step);
      flat.push(...(await this.commands.readGrains(`${this.keys.base}f:`, seqs.length, ...seqs, ...slice)));
    }
    const folds = new Map<number, FoldCounts>();
    for (const [grain, seq, pairs] of flat) {
      let counts = folds.get(Number(seq));
      if (!counts) folds.set(Number(seq), (counts = new Map()));
      counts.set(grain, pairsToMap(pairs));
    }
    return [...folds].map(([seq, counts]) => ({ seq, counts })).sort((a, b) => a.seq - b.seq);
  }

  /** Every count of one fold (tests, a look at one fold; the folder reads grains in chunks). */
  async read(seq: number): Promise<FoldCounts> {
    const grains = await this.redis.smembers(`${this.keys.foldPrefix(seq)}${GRAINS_SUFFIX}`);
    return (await this.readGrains([seq], grains))[0]?.counts ?? new Map();
  }

  /** Owners of campaigns and publishers counted (`c:<id>` / `p:<id>`). */
  async owners(fields: string[]): Promise<Map<string, string>> {
    if (fields.length === 0) return new Map();
    const values = await this.redis.hmget(this.keys.owners, ...fields);
    const owners = new Map<string, string>();
    fields.forEach((field, index) => {
      const value = values[index];
      if (value) owners.set(field, value);
    });
    return owners;
  }

  /** The fold is in MongoDB now; readers still see it for a while (until swept), to bridge their two reads. */
  async markApplied(seq: number, now: Date): Promise<void> {
    await this.redis.multi().zrem(this.keys.pendingFolds, String(seq)).zadd(this.keys.appliedFolds, now.getTime(), String(seq)).exec();
  }

  /** Deletes folds applied more than `keepAppliedMs` ago and counted-once sets whose tokens all expired. */
  async sweep(now: Date, keepAppliedMs: number): Promise<SweepCounts> {
    const firstNeededHour = hourOf(new Date(now.getTime() - ONCE_MARGIN_MS)) - 1;
    const swept: SweepCounts = { folds: 0, hours: 0 };
    for (;;) {
      const [folds, hours] = await this.commands.sweep(
        this.keys.appliedFolds,
        this.keys.onceHours,
        now.getTime() - keepAppliedMs,
        `${this.keys.base}f:`,
        firstNeededHour,
        `${this.keys.base}once:`,
        FOLDS_PER_SWEEP,
      );
      swept.folds += folds;
      swept.hours += hours;
      if (folds < FOLDS_PER_SWEEP) return swept;
    }
  }
}
