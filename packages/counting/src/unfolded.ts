/**
 * The readers' side: what the counting pipeline holds in Redis that MongoDB may not hold yet. A totals
 * read takes MongoDB's documents first, then this; a fold's counts are added to a grain only if that
 * grain's document had not applied the fold yet (its `lastFold` is lower), so a fold applied between the
 * two reads is counted once, and one applied before them is not counted again.
 */
import { asInfrastructureFault } from '@pilot/platform';
import type { Redis } from 'ioredis';
import { CountKeys, subjectsOf } from './layout';
import { countCommandsOn, pairsToMap, type CountCommands } from './lua-commands';

export interface UnfoldedPart {
  /** The fold's number; for an interval not claimed yet, the least number its fold will have. */
  fold: number;
  grain: string;
  /** `<day>|<kind>` -> count. */
  fields: Map<string, number>;
}

export interface Unfolded {
  /** Owner accounts of the `c:<id>` / `p:<id>` asked for, when counted already. */
  owners: Map<string, string>;
  parts: UnfoldedPart[];
}

/** An unfolded part of a grain `cp:<campaign>:<publisher>`, with the owners Redis holds of both. */
export interface UnfoldedPair {
  fold: number;
  campaignId: number;
  publisherId: number;
  campaignOwnerAccountId: string | null;
  publisherOwnerAccountId: string | null;
  /** `<day>|<kind>` and `<day>T<HH>|<kind>` -> count. */
  fields: Map<string, number>;
}

export class UnfoldedCounts {
  private readonly keys: CountKeys;
  private readonly commands: CountCommands;

  constructor(
    redis: Redis,
    prefix: string,
    private readonly timeoutMs: number,
  ) {
    this.keys = new CountKeys(prefix);
    this.commands = countCommandsOn(redis);
  }

  /** What Redis holds unfolded of `grains` (none named: of every `cp:` grain, with its owners), and the owners of `ownerFields`. */
  private async unfolded(what: string, grains: string[], ownerFields: string[] = []) {
    const { keys } = this;
    return asInfrastructureFault(
      () => this.commands.readUnfolded(keys.openIntervals, keys.pendingFolds, keys.appliedFolds, keys.owners, keys.foldSequence, `${keys.base}i:`, `${keys.base}f:`, ownerFields.length, ...ownerFields, ...grains),
      this.timeoutMs,
      'redis',
      what,
    );
  }

  async read(grains: string[], ownerFields: string[] = []): Promise<Unfolded> {
    const [ownerValues, ...raw] = await this.unfolded('unfolded counts', grains, ownerFields);
    const owners = new Map<string, string>();
    ownerFields.forEach((field, index) => {
      const value = ownerValues[index];
      if (value) owners.set(field, value);
    });
    return { owners, parts: raw.map(([fold, grain, pairs]) => ({ fold: Number(fold), grain, fields: pairsToMap(pairs) })) };
  }

  /** Every campaign-on-publisher grain's unfolded parts (the report's finest grain), in one script call. */
  async readPairs(): Promise<UnfoldedPair[]> {
    const [, ...raw] = await this.unfolded('unfolded pair counts', []);
    return raw.map(([fold, grain, pairs, campaignOwner, publisherOwner]) => {
      const { campaignId, publisherId } = subjectsOf(grain);
      return { fold: Number(fold), campaignId: campaignId!, publisherId: publisherId!, campaignOwnerAccountId: campaignOwner || null, publisherOwnerAccountId: publisherOwner || null, fields: pairsToMap(pairs) };
    });
  }
}
