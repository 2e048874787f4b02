/** The folder's side in Redis: claiming intervals as folds, walking them, marking them applied, sweeping. */
import type { Redis } from 'ioredis';
import { isBreakdownGrain } from './breakdown-layout';
import { countKeys, type CountKeys, grainFieldsOf, hourOf, ONCE_MARGIN_MS } from './layout';
import { countCommandsOn, pairsToMap, type CountCommands } from './lua-commands';

/** A fold's counts: grain -> field -> count. */
export type Fold = { seq: number; counts: Map<string, Map<string, number>> };

/** Applied folds one sweep call deletes at most; hashes one read-grains call reads at most. */
const FOLDS_PER_SWEEP = 2;
const HASHES_PER_READ = 2_000;
const PASS_GRAINS_MS = 10 * 60_000;

export class CountJournal {
  readonly keys: CountKeys;
  private readonly commands: CountCommands;

  constructor(
    private readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = countKeys(prefix);
    this.commands = countCommandsOn(redis);
  }

  /** Intervals with unclaimed counts that ended at least `graceMs` before `now`, oldest first. */
  async closedIntervals(now: Date, graceMs: number): Promise<number[]> {
    return (await this.redis.zrangebyscore(this.keys.openIntervals, '-inf', now.getTime() - graceMs)).map(Number);
  }

  /** The oldest interval not claimed yet, and the folds claimed and not applied: the pipeline's lag. */
  async oldestUnapplied(): Promise<{ interval: number | null; folds: number }> {
    const [oldest, folds] = await Promise.all([this.redis.zrange(this.keys.openIntervals, 0, 0), this.redis.zcard(this.keys.pendingFolds)]);
    return { interval: oldest[0] === undefined ? null : Number(oldest[0]), folds };
  }

  /** Claims an interval as a fold (claim-interval.lua): its number, or null when it held nothing. */
  async claim(interval: number): Promise<number | null> {
    const { keys } = this;
    const seq = Number(await this.commands.claimInterval(keys.openIntervals, keys.pendingFolds, keys.foldSequence, interval, keys.intervalPrefix(interval), `${keys.base}f:`));
    return seq > 0 ? seq : null;
  }

  /** Claimed folds not applied yet, in the order they are applied (at most `limit`). */
  async pendingFolds(limit = -1): Promise<number[]> {
    return (await this.redis.zrange(this.keys.pendingFolds, 0, limit < 0 ? -1 : limit - 1)).map(Number);
  }

  /**
   * The batch's counts a chunk of grains at a time, with the owners they name (breakdown grains are never
   * folded), from one set of the batch's grains; a set gone mid-walk throws rather than end the walk early.
   */
  async *chunksOf(seqs: number[], grainsPerChunk: number): AsyncGenerator<{ folds: Fold[]; owners: Map<string, string> }> {
    const { passGrains } = this.keys;
    if (seqs.length === 0) return;
    const foldGrains = seqs.map((seq) => `${this.keys.foldPrefix(seq)}grains`);
    const [[, gathered]] = (await this.redis.multi().sunionstore(passGrains, ...foldGrains).pexpire(passGrains, PASS_GRAINS_MS).exec()) as [[null, number]];
    if (gathered === 0) return;
    let cursor = '0';
    do {
      const [[, alive], [, step]] = (await this.redis.multi().pexpire(passGrains, PASS_GRAINS_MS).sscan(passGrains, cursor, 'COUNT', grainsPerChunk).exec()) as [[null, number], [null, [string, string[]]]];
      if (alive === 0) throw new Error('the grains gathered for the pass are gone');
      const grains = step[1].filter((grain) => !isBreakdownGrain(grain));
      if (grains.length > 0) yield { folds: await this.readGrains(seqs, grains), owners: await this.owners(subjectsOf(grains)) };
      cursor = step[0];
    } while (cursor !== '0');
    await this.redis.del(passGrains);
  }

  /** What these folds counted for these grains, fold by fold (in number order), a few thousand hashes a script call. */
  async readGrains(seqs: number[], grains: string[]): Promise<Fold[]> {
    const folds = new Map<number, Fold['counts']>(seqs.map((seq) => [seq, new Map()]));
    const step = Math.max(1, Math.floor(HASHES_PER_READ / seqs.length));
    for (let start = 0; start < grains.length; start += step) {
      for (const [grain, seq, pairs] of await this.commands.readGrains(`${this.keys.base}f:`, seqs.length, ...seqs, ...grains.slice(start, start + step))) folds.get(seq)!.set(grain, pairsToMap(pairs));
    }
    return [...folds].filter(([, counts]) => counts.size > 0).map(([seq, counts]) => ({ seq, counts })).sort((a, b) => a.seq - b.seq);
  }

  /** Owners of the campaigns and publishers counted (`c:<id>` / `p:<id>`). */
  async owners(fields: string[]): Promise<Map<string, string>> {
    if (fields.length === 0) return new Map();
    const values = await this.redis.hmget(this.keys.owners, ...fields);
    return new Map(fields.flatMap((field, index) => (values[index] ? [[field, values[index]] as [string, string]] : [])));
  }

  /** The fold is in MongoDB now; readers still see it until swept, to bridge their two reads. */
  async markApplied(seq: number, now: Date): Promise<void> {
    await this.redis.multi().zrem(this.keys.pendingFolds, String(seq)).zadd(this.keys.appliedFolds, now.getTime(), String(seq)).exec();
  }

  /** Deletes folds applied more than `keepAppliedMs` ago and counted-once sets whose tokens all expired. */
  async sweep(now: Date, keepAppliedMs: number): Promise<void> {
    const firstNeededHour = hourOf(new Date(now.getTime() - ONCE_MARGIN_MS)) - 1;
    const { keys } = this;
    for (let folds = FOLDS_PER_SWEEP; folds === FOLDS_PER_SWEEP; ) {
      folds = await this.commands.sweep(keys.appliedFolds, keys.onceHours, now.getTime() - keepAppliedMs, `${keys.base}f:`, firstNeededHour, `${keys.base}once:`, FOLDS_PER_SWEEP);
    }
  }
}

/** The campaigns and publishers (`c:<id>`, `p:<id>`) the grains name, for their owners. */
function subjectsOf(grains: string[]): string[] {
  const subjects = new Set<string>();
  for (const { campaignId, publisherId } of grains.map(grainFieldsOf)) {
    if (campaignId !== null) subjects.add(`c:${campaignId}`);
    if (publisherId !== null) subjects.add(`p:${publisherId}`);
  }
  return [...subjects];
}
