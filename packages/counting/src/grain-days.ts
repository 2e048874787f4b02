import type { StoredGrain } from './totals-store';
import type { UnfoldedPart } from './unfolded';

/** Day counts of one grain: `<YYYY-MM-DD>` -> kind -> count. */
export type GrainDays = Record<string, Record<string, number>>;

/**
 * A grain's days as MongoDB holds them (each day's document having applied the folds up to its
 * `lastFold`) plus what Redis holds that the documents do not: open intervals always, folds only above
 * the `lastFold` of the day's document.
 */
export function grainDaysOf(stored: Pick<StoredGrain, 'days' | 'lastFolds'> | undefined, unfolded: Pick<UnfoldedPart, 'fold' | 'fields'>[]): GrainDays {
  const days: GrainDays = {};
  for (const [date, counts] of Object.entries(stored?.days ?? {})) days[date] = { ...counts };
  for (const part of unfolded) {
    for (const [field, count] of part.fields) {
      if (field[10] !== '|') continue; // an hour field (hourly-layout.ts)
      const date = field.slice(0, 10);
      if (part.fold <= (stored?.lastFolds[date] ?? 0)) continue;
      const kind = field.slice(11);
      const day = (days[date] ??= {});
      day[kind] = (day[kind] ?? 0) + count;
    }
  }
  return days;
}
