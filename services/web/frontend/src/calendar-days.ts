/** UTC calendar days as the API names them (`YYYY-MM-DD`), and their numbers (days since 1970-01-01) for arithmetic. */
const CALENDAR_DATE = /^\d{4}-\d{2}-\d{2}$/;
const DAY_MS = 86_400_000;

/** True for a value written as a calendar date (`2026-12-07`). */
export function isCalendarDate(value: string): boolean {
  return CALENDAR_DATE.test(value);
}

/** The day's number: 1970-01-01 is 0. */
export function dayNumber(date: string): number {
  return Math.floor(Date.parse(`${date}T00:00:00Z`) / DAY_MS);
}

/** The date of a day's number. */
export function dateOfDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** The date `days` days before `date` (after it, when negative). */
export function daysBefore(date: string, days: number): string {
  return dateOfDay(dayNumber(date) - days);
}
