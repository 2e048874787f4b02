/**
 * A day's hourly figures (stats with granularity=hour): every UTC hour of the day, quiet hours as zeros and
 * hours still to come marked as such (they have no figures yet, not zero), and the hours so far as CSV.
 */
import { isCalendarDate } from './calendar-days';
import type { Totals } from './types';

export interface HourFigures {
  hour: string;
  adRequests: number;
  confirmedDeliveries: number;
  clickedLinks: number;
}

export type HourlyStats = Totals & { hours: HourFigures[] };

const HOUR_MS = 60 * 60 * 1000;

export type DayHour = HourFigures & { toCome: boolean };

/**
 * The 24 hours of `date` (YYYY-MM-DD, UTC) with the figures of those answered; an hour that starts after
 * `now` is to come. None for a date that is not one.
 */
export function dayHours(hours: readonly HourFigures[], date: string, now: Date): DayHour[] {
  const start = Date.parse(`${date}T00:00:00Z`);
  if (!isCalendarDate(date) || !Number.isFinite(start)) return [];
  const known = new Map(hours.map((hour) => [Date.parse(hour.hour), hour]));
  return Array.from({ length: 24 }, (_, index) => {
    const at = start + index * HOUR_MS;
    const figures = known.get(at);
    return {
      hour: new Date(at).toISOString(),
      adRequests: figures?.adRequests ?? 0,
      confirmedDeliveries: figures?.confirmedDeliveries ?? 0,
      clickedLinks: figures?.clickedLinks ?? 0,
      toCome: at > now.getTime(),
    };
  });
}

/** The hours that have begun as CSV (RFC 4180, header first, CRLF line ends); hours are ISO 8601 UTC. */
export function hoursCsv(hours: readonly DayHour[]): string {
  const lines = ['hour,ad_requests,confirmed_deliveries,clicked_links'];
  for (const hour of hours) if (!hour.toCome) lines.push([hour.hour, hour.adRequests, hour.confirmedDeliveries, hour.clickedLinks].join(','));
  return `${lines.join('\r\n')}\r\n`;
}
