import { parseHourField, type HourCounts } from './hourly-layout';
import { parseField } from './layout';
import type { StoredGrain } from './totals-store';
import type { UnfoldedPart } from './unfolded';

/** Day counts of one grain: `<YYYY-MM-DD>` -> kind -> count. */
export type GrainDays = Record<string, Record<string, number>>;

type Unfolded = Array<Pick<UnfoldedPart, 'fold' | 'fields'>>;

/**
 * A grain's days as MongoDB holds them (each day's document having applied the folds up to its
 * `lastFold`) plus what Redis holds that the documents do not: open intervals always, folds only above
 * the `lastFold` of the day's document.
 */
export function grainDaysOf(stored: Pick<StoredGrain, 'days' | 'lastFolds'> | undefined, unfolded: Unfolded): GrainDays {
  return withUnfolded(stored?.days ?? {}, stored?.lastFolds ?? {}, unfolded, false);
}

/** The same by the hour (keyed `YYYY-MM-DDTHH`), from the hour fields. */
export function grainHoursOf(stored: Pick<StoredGrain, 'hours' | 'lastFolds'> | undefined, unfolded: Unfolded): HourCounts {
  return withUnfolded(stored?.hours ?? {}, stored?.lastFolds ?? {}, unfolded, true);
}

function withUnfolded(stored: GrainDays, lastFolds: Record<string, number>, unfolded: Unfolded, hourly: boolean): GrainDays {
  const sums: GrainDays = {};
  for (const [key, counts] of Object.entries(stored)) sums[key] = { ...counts };
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
