/** UTC months of the totals documents (YYYY-MM) and which of them a read needs. Pure. */

const DAY_MS = 86_400_000;

/** Inclusive UTC dates, YYYY-MM-DD; absent means from the first month counted, or up to now. */
export interface DayRange {
  from?: string;
  to?: string;
}

export function monthOf(day: string): string {
  return day.slice(0, 7);
}

export function totalsIdOf(grain: string, month: string): string {
  return `${grain}|${month}`;
}

/** The months from `first` to `last` (YYYY-MM, inclusive), oldest first. */
export function monthsBetween(first: string, last: string): string[] {
  const months: string[] = [];
  let [year, month] = first.split('-').map(Number) as [number, number];
  for (let current = first; current <= last; ) {
    months.push(current);
    month += 1;
    if (month > 12) [year, month] = [year + 1, 1];
    current = `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}`;
  }
  return months;
}

/**
 * The months whose documents answer a read of `range` at `now`: from the first month counted (or `from`'s
 * month, when later) to `to`'s month or the month of tomorrow (a writer's clock a little ahead at the turn
 * of a month), whichever is earlier. None before the first fold.
 */
export function monthsToRead(range: DayRange, firstMonth: string | null, now: Date): string[] {
  if (firstMonth === null) return [];
  const fromMonth = range.from === undefined ? firstMonth : monthOf(range.from);
  const latest = monthOf(new Date(now.getTime() + DAY_MS).toISOString());
  const toMonth = range.to === undefined || monthOf(range.to) > latest ? latest : monthOf(range.to);
  return monthsBetween(fromMonth > firstMonth ? fromMonth : firstMonth, toMonth);
}
