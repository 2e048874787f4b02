/**
 * The dashboard chart's data: one bar group per UTC day from the first to the last day
 * shown, days without events as zeros, so the x-axis is a timeline; the series in one fixed order that the
 * bars and the legend both follow, in colours of at least 4.5:1 on white (the legend writes the names in them).
 */
import { dateOfDay, dayNumber, isCalendarDate } from './calendar-days';
import type { Stats, Totals } from './types';

export const SERIES: ReadonlyArray<{ key: keyof Totals; name: string; color: string }> = [
  { key: 'adRequests', name: 'Ad requests', color: '#2f5fc4' },
  { key: 'confirmedDeliveries', name: 'Confirmed deliveries', color: '#1d7a52' },
  { key: 'clickedLinks', name: 'Clicked links', color: '#a85d00' },
];

/** A bar of any non-zero value is at least this tall, so 1 click next to 54 requests can be seen. */
export const MIN_BAR_PX = 6;

export function minBarSize(value: unknown): number {
  // Recharts may pass a bar's value as [base, value].
  const shown: unknown = Array.isArray(value) ? value[value.length - 1] : value;
  return typeof shown === 'number' && shown > 0 ? MIN_BAR_PX : 0;
}

/** The legend sorts by this: the position of the series among the bars. */
export function seriesOrder(item: { dataKey?: unknown }): number {
  return SERIES.findIndex((series) => series.key === item.dataKey);
}

/** The most days one chart draws as days; a longer range is drawn by month (the table and the CSV keep every day). */
export const MAX_CHART_DAYS = 366;

/**
 * Every day from `from` (or the first day with events) to `to` (or the last day with events), each with
 * its totals or zeros, however long the range. No events and no range: no days.
 */
export function timeline(days: Stats['days'], range: { from?: string; to?: string } = {}): Stats['days'] {
  const known = new Map(days.map((day) => [day.date, day]));
  const eventDays = days.map((day) => dayNumber(day.date)).filter(Number.isFinite);
  const first = range.from && isCalendarDate(range.from) ? dayNumber(range.from) : eventDays.length ? Math.min(...eventDays) : null;
  const last = range.to && isCalendarDate(range.to) ? dayNumber(range.to) : eventDays.length ? Math.max(...eventDays) : null;
  if (first === null || last === null || last < first) return [];
  const filled: Stats['days'] = [];
  for (let day = first; day <= last; day += 1) {
    const date = dateOfDay(day);
    filled.push(known.get(date) ?? { date, adRequests: 0, confirmedDeliveries: 0, clickedLinks: 0 });
  }
  return filled;
}

/** A date range whose start is after its end, in the words of the filter form; null when it is fine. */
export function rangeProblem(from: string, to: string): string | null {
  if (from && to && from > to) return 'The "From" date is after the "To" date: choose a start on or before the end.';
  return null;
}

export interface ChartPoint extends Totals {
  /** the day (YYYY-MM-DD) or the month (YYYY-MM) of the bar */
  period: string;
}

export interface Chart {
  unit: 'day' | 'month';
  points: ChartPoint[];
}

/**
 * The bars of a timeline: one a day up to MAX_CHART_DAYS days, else one a UTC month (each month's sum, the
 * first and last months partial), so the chart covers the whole range the totals cover.
 */
export function chartOf(days: Stats['days']): Chart {
  if (days.length <= MAX_CHART_DAYS) return { unit: 'day', points: days.map(({ date, ...totals }) => ({ period: date, ...totals })) };
  const months = new Map<string, ChartPoint>();
  for (const day of days) {
    const period = day.date.slice(0, 7);
    const month = months.get(period) ?? { period, adRequests: 0, confirmedDeliveries: 0, clickedLinks: 0 };
    month.adRequests += day.adRequests;
    month.confirmedDeliveries += day.confirmedDeliveries;
    month.clickedLinks += day.clickedLinks;
    months.set(period, month);
  }
  return { unit: 'month', points: [...months.values()] };
}
