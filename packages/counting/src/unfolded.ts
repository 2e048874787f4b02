/** The readers' side: what Redis holds that MongoDB may not (README.md), and the sum of the two. */
import { asInfrastructureFault } from '@pilot/platform';
import type { Redis } from 'ioredis';
import { countKeys, type CountKeys, grainFieldsOf, type GrainDays, parseField, parseHourField, type StoredGrain } from './layout';
import { countCommandsOn, pairsToMap, type CountCommands } from './lua-commands';

export interface UnfoldedPart {
  /** The fold's number; for an interval not claimed yet, the least number its fold will have. */
  fold: number;
  grain: string;
  fields: Map<string, number>;
}

/** An unfolded part of a grain `cp:<campaign>:<publisher>`, with the owners Redis holds of both. */
export type UnfoldedPair = Omit<UnfoldedPart, 'grain'> & { campaignId: number; publisherId: number; campaignOwnerAccountId: string | null; publisherOwnerAccountId: string | null };

export class UnfoldedCounts {
  private readonly keys: CountKeys;
  private readonly commands: CountCommands;

  constructor(
    redis: Redis,
    prefix: string,
    private readonly timeoutMs: number,
  ) {
    this.keys = countKeys(prefix);
    this.commands = countCommandsOn(redis);
  }

  /** read-unfolded.lua: of `grains` (none: of every `cp:` grain, with its owners), and the owners of `ownerFields`. */
  private unfolded(what: string, grains: string[], ownerFields: string[] = []) {
    const { keys } = this;
    const read = () => this.commands.readUnfolded(keys.openIntervals, keys.pendingFolds, keys.appliedFolds, keys.owners, keys.foldSequence, `${keys.base}i:`, `${keys.base}f:`, ownerFields.length, ...ownerFields, ...grains);
    return asInfrastructureFault(read, this.timeoutMs, 'redis', what);
  }

  /** The parts of `grains`, and the owners Redis holds of `ownerFields` (`c:<id>`, `p:<id>`). */
  async read(grains: string[], ownerFields: string[] = []): Promise<{ owners: Map<string, string>; parts: UnfoldedPart[] }> {
    const [ownerValues, ...raw] = await this.unfolded('unfolded counts', grains, ownerFields);
    const owners = new Map(ownerFields.flatMap((field, index) => (ownerValues[index] ? [[field, ownerValues[index]] as [string, string]] : [])));
    return { owners, parts: raw.map(([fold, grain, pairs]) => ({ fold: Number(fold), grain, fields: pairsToMap(pairs) })) };
  }

  /** Every campaign-on-publisher grain's unfolded parts (the report's finest grain). */
  async readPairs(): Promise<UnfoldedPair[]> {
    const [, ...raw] = await this.unfolded('unfolded pair counts', []);
    return raw.map(([fold, grain, pairs, campaignOwner, publisherOwner]) => {
      const { campaignId, publisherId } = grainFieldsOf(grain);
      return { fold: Number(fold), campaignId: campaignId!, publisherId: publisherId!, campaignOwnerAccountId: campaignOwner || null, publisherOwnerAccountId: publisherOwner || null, fields: pairsToMap(pairs) };
    });
  }
}

type Parts = Array<Pick<UnfoldedPart, 'fold' | 'fields'>>;

/** A grain's days (`hourly`: hours, `YYYY-MM-DDTHH`) as MongoDB holds them plus what Redis holds above each day's `lastFold`. */
export function grainDaysOf(stored: Partial<Pick<StoredGrain, 'days' | 'hours' | 'lastFolds'>> | undefined, unfolded: Parts, hourly = false): GrainDays {
  const sums: GrainDays = {};
  const lastFolds = stored?.lastFolds ?? {};
  for (const [key, counts] of Object.entries((hourly ? stored?.hours : stored?.days) ?? {})) sums[key] = { ...counts };
  for (const part of unfolded) {
    for (const [field, count] of part.fields) {
      const parsed = hourly ? parseHourField(field) : parseField(field);
      if (!parsed || part.fold <= (lastFolds[parsed.day] ?? 0)) continue;
      const sum = (sums['hour' in parsed ? `${parsed.day}T${parsed.hour}` : parsed.day] ??= {});
      sum[parsed.kind] = (sum[parsed.kind] ?? 0) + count;
    }
  }
  return sums;
}
