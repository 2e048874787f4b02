import type { UnfoldedPart } from './unfolded';

/** Day counts of one grain: `<YYYY-MM-DD>` -> kind -> count. */
export type GrainDays = Record<string, Record<string, number>>;

/**
 * A grain's days as MongoDB holds them (having applied folds up to `lastFold`) plus what Redis holds that
 * the document does not: open intervals always, folds only above `lastFold`.
 */
export function grainDaysOf(stored: GrainDays | undefined, lastFold: number, unfolded: Pick<UnfoldedPart, 'fold' | 'fields'>[]): GrainDays {
  const days: GrainDays = {};
  for (const [date, counts] of Object.entries(stored ?? {})) days[date] = { ...counts };
  for (const part of unfolded) {
    if (part.fold !== 0 && part.fold <= lastFold) continue;
    for (const [field, count] of part.fields) {
      const date = field.slice(0, 10);
      const kind = field.slice(11);
      const day = (days[date] ??= {});
      day[kind] = (day[kind] ?? 0) + count;
    }
  }
  return days;
}
