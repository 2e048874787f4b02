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

export interface KeptFolds {
  above: number;
  through: number;
}

export interface Unfolded {
  /** Owner accounts of the `c:<id>` / `p:<id>` asked for, when counted already. */
  owners: Map<string, string>;
  /**
   * Redis holds every fold numbered above `above` up to `through`, the last numbered: what a kept breakdown
   * document's side may rely on (a Redis that lost its state or went back numbers none above it yet).
   */
  keptFolds: KeptFolds;
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

  /** The keys and prefixes both read scripts take first. */
  private scriptKeys(): string[] {
    const { keys } = this;
    return [keys.openIntervals, keys.pendingFolds, keys.appliedFolds, keys.owners, keys.foldSequence, keys.sweptFolds, `${keys.base}i:`, `${keys.base}f:`];
  }

  read(grains: string[], ownerFields: string[] = []): Promise<Unfolded> {
    return asInfrastructureFault(
      async () => {
        const [ownerValues, [above, through], ...raw] = await this.commands.readUnfolded(
          ...this.scriptKeys(),
          ownerFields.length,
          ...ownerFields,
          ...grains,
        );
        const owners = new Map<string, string>();
        ownerFields.forEach((field, index) => {
          const value = ownerValues[index];
          if (value) owners.set(field, value);
        });
        return { owners, keptFolds: { above: Number(above), through: Number(through) }, parts: raw.map(([fold, grain, pairs]) => ({ fold: Number(fold), grain, fields: pairsToMap(pairs) })) };
      },
      this.timeoutMs,
      'redis',
      'unfolded counts',
    );
  }

  /** Every campaign-on-publisher grain's unfolded parts (the report's finest grain), in one script call. */
  readPairs(): Promise<UnfoldedPair[]> {
    return asInfrastructureFault(
      async () => {
        const [, ...raw] = await this.commands.readUnfoldedPairs(
          ...this.scriptKeys(),
        );
        return raw.map(([fold, grain, pairs, campaignOwner, publisherOwner]) => {
          const { campaignId, publisherId } = subjectsOf(grain);
          return { fold: Number(fold), campaignId: campaignId!, publisherId: publisherId!, campaignOwnerAccountId: campaignOwner || null, publisherOwnerAccountId: publisherOwner || null, fields: pairsToMap(pairs) };
        });
      },
      this.timeoutMs,
      'redis',
      'unfolded pair counts',
    );
  }
}
