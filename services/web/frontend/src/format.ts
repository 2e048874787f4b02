/**
 * One number format and one time rule for the whole workspace: counts with thousands separators, shares
 * rounded to one decimal that never read as a whole they have not reached (nor as nothing when there is
 * some), and every time in UTC, labelled.
 */
import { isCalendarDate } from './calendar-days';

const COUNT = new Intl.NumberFormat('en', { maximumFractionDigits: 0 });
const SHARE = new Intl.NumberFormat('en', { style: 'percent', minimumFractionDigits: 1, maximumFractionDigits: 1 });
const DATE = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', day: 'numeric', month: 'short', year: 'numeric' });
const DATE_TIME = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'UTC',
  day: 'numeric',
  month: 'short',
  year: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  hourCycle: 'h23',
});
const MONTH = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', month: 'short', year: 'numeric' });
const HOUR = new Intl.DateTimeFormat('en-GB', { timeZone: 'UTC', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });

/** The label every page shows beside its times. */
export const TIME_ZONE_LABEL = 'UTC';

/** A count with its noun in the number it takes: "1 campaign", "2 campaigns", "1,429 days". */
export function countOf(value: number, noun: { one: string; many: string }): string {
  return `${formatCount(value)} ${value === 1 ? noun.one : noun.many}`;
}

/** "23,775". */
export function formatCount(value: number): string {
  return COUNT.format(value);
}

/**
 * A share as a percentage rounded to one decimal ("55.6%" for 15 of 27). A share short of the whole never
 * reads 100.0% (23,769 of 23,775 is "99.9%"), a share above nothing never reads 0.0% ("0.1%"). Null when
 * there is nothing to divide by, or when the part exceeds the whole (then it is not a share of it).
 */
export function formatShare(part: number, whole: number): string | null {
  if (!Number.isFinite(part) || !Number.isFinite(whole) || whole <= 0 || part < 0 || part > whole) return null;
  let tenths = Math.round((part / whole) * 1000);
  if (tenths === 1000 && part < whole) tenths = 999;
  if (tenths === 0 && part > 0) tenths = 1;
  return SHARE.format(tenths / 1000);
}

/** A signed change against a previous value ("+12.5%", "−3.0%"); null when the previous value is 0. */
export function formatChange(current: number, previous: number): string | null {
  if (!Number.isFinite(current) || !Number.isFinite(previous) || previous <= 0) return null;
  const change = Math.round(((current - previous) / previous) * 1000) / 1000;
  const sign = change > 0 ? '+' : change < 0 ? '−' : '±';
  return `${sign}${SHARE.format(Math.abs(change))}`;
}

function instant(value: string | Date): Date {
  return value instanceof Date ? value : new Date(value);
}

/** "27 Nov 2026, 10:42 UTC". */
export function formatDateTime(value: string | Date): string {
  return `${DATE_TIME.format(instant(value))} ${TIME_ZONE_LABEL}`;
}

/** "27 Nov 2026" for a UTC calendar date (YYYY-MM-DD) or an instant's UTC day. */
export function formatDate(value: string | Date): string {
  const at = typeof value === 'string' && isCalendarDate(value) ? new Date(`${value}T00:00:00Z`) : instant(value);
  return DATE.format(at);
}

/** "10:00" for an instant's UTC hour (the unit of hourly figures). */
export function formatHour(value: string | Date): string {
  return HOUR.format(instant(value));
}

/** "Nov 2026" for a UTC month (YYYY-MM). */
export function formatMonth(value: string): string {
  return MONTH.format(new Date(`${value}-01T00:00:00Z`));
}
