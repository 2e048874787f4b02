/**
 * Hourly figures (API.md `stats` with `granularity=hour`, docs/counting.md). Pure: names and arithmetic.
 *
 * A fact is counted, beside its day field `<YYYY-MM-DD>|<kind>`, in an hour field `<YYYY-MM-DD>T<HH>|<kind>`
 * of the same grains' hashes (the UTC hour of the allocation, or of an unfilled request). The folder adds
 * the hour fields to the `hours` of the grain's day document, unset HOURLY_RETENTION_DAYS after the day.
 */

/** A day document's hours are kept this many days after its day, then unset; older hours are not answered. */
export const HOURLY_RETENTION_DAYS = 35;

const DAY_MS = 86_400_000;

/** The hour field of a fact at `at`: `<YYYY-MM-DD>T<HH>|<kind>`. */
export function hourFieldOf(at: Date, kind: string): string {
  return `${at.toISOString().slice(0, 13)}|${kind}`;
}

/** The day, hour (00..23) and kind of an hour field; null for any other field. */
export function parseHourField(field: string): { day: string; hour: string; kind: string } | null {
  if (field.length < 15 || field[10] !== 'T' || field[13] !== '|') return null;
  return { day: field.slice(0, 10), hour: field.slice(11, 13), kind: field.slice(14) };
}

/** The ISO 8601 instants of every hour of the UTC days from `from` to `to`, inclusive, oldest first. */
export function hoursOfDays(from: string, to: string): string[] {
  const hours: string[] = [];
  const end = Date.parse(`${to}T00:00:00.000Z`) + DAY_MS;
  for (let at = Date.parse(`${from}T00:00:00.000Z`); at < end; at += 3_600_000) hours.push(new Date(at).toISOString());
  return hours;
}

/** The first day whose hours are still kept at `now`. */
export function firstKeptHourlyDay(now: Date): string {
  return new Date(now.getTime() - (HOURLY_RETENTION_DAYS - 1) * DAY_MS).toISOString().slice(0, 10);
}

/** Per hour (HH within a day's document, YYYY-MM-DDTHH across days), per kind, a count. */
export type HourCounts = Record<string, Record<string, number>>;
