/** The schedule times of the API: ISO 8601 date-times in UTC, read exactly (no rolled-over dates). */

// 2026-01-31T12:00Z, 2026-01-31T12:00:00Z, 2026-01-31T12:00:00.000Z (or +00:00).
const UTC_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(?:Z|\+00:00)$/;

export function parseUtcDateTime(value: string): Date | null {
  const match = UTC_DATE_TIME.exec(value);
  if (!match) return null;
  const [, year, month, day, hour, minute, second = '0', fraction = '0'] = match;
  const millis = Number(fraction.padEnd(3, '0'));
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second), millis));
  // Date.UTC rolls 2026-02-30 over into March; a real date reads back the same fields.
  if (
    date.getUTCFullYear() !== Number(year) ||
    date.getUTCMonth() !== Number(month) - 1 ||
    date.getUTCDate() !== Number(day) ||
    date.getUTCHours() !== Number(hour) ||
    date.getUTCMinutes() !== Number(minute) ||
    date.getUTCSeconds() !== Number(second)
  ) {
    return null;
  }
  return date;
}
