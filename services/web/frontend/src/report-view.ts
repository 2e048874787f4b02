/**
 * The report page's model (GET /api/workspace/stats/report, API.md): its dimensions, the address's
 * parameters read into a request the service accepts, and the words of its columns. Pure.
 */
import { dayNumber, daysBefore, isCalendarDate } from './calendar-days';
import { presetRange, type Preset } from './stats-view';

export const DIMENSIONS = [
  { id: 'day', label: 'Day (UTC)' },
  { id: 'hour', label: 'Hour (UTC)' },
  { id: 'campaign', label: 'Campaign' },
  { id: 'publisher', label: 'Platform' },
  { id: 'language', label: 'Language' },
  { id: 'format', label: 'Format' },
] as const;
export type Dimension = (typeof DIMENSIONS)[number]['id'];

export const REPORT_FIGURES = [
  { id: 'adRequests', label: 'Ad requests' },
  { id: 'confirmedDeliveries', label: 'Confirmed deliveries' },
  { id: 'clickedLinks', label: 'Clicked links' },
] as const;
export type ReportFigure = (typeof REPORT_FIGURES)[number]['id'];

/** The most dimensions a report crosses. */
export const MAX_DIMENSIONS = 3;
/** The longest period of a report by hour, in days (both ends included). */
export const HOUR_DAYS = 7;

export interface ReportRow {
  day?: string;
  hour?: string;
  campaignId?: number;
  publisherId?: number;
  language?: string;
  format?: string;
  adRequests: number;
  confirmedDeliveries: number;
  clickedLinks: number;
}

export interface ReportAnswer {
  rows: ReportRow[];
  totals: { adRequests: number; confirmedDeliveries: number; clickedLinks: number };
  nextCursor: string | null;
}

/** A row's field for each dimension. */
export const ROW_FIELD: Record<Dimension, keyof ReportRow> = { day: 'day', hour: 'hour', campaign: 'campaignId', publisher: 'publisherId', language: 'language', format: 'format' };

const isDimension = (value: string): value is Dimension => DIMENSIONS.some((dimension) => dimension.id === value);

/** The dimensions in the address (`by=day,campaign`): known ones, each once, at most three, not day with hour; day when none is left. */
export function dimensionsOf(by: string): Dimension[] {
  const chosen: Dimension[] = [];
  for (const part of by.split(',')) {
    if (!isDimension(part) || chosen.includes(part) || chosen.length >= MAX_DIMENSIONS) continue;
    if ((part === 'day' && chosen.includes('hour')) || (part === 'hour' && chosen.includes('day'))) continue;
    chosen.push(part);
  }
  return chosen.length > 0 ? chosen : ['day'];
}

/** The sort in the address when it is a figure or one of the dimensions chosen; else the first figure. */
export function sortOf(sort: string, dimensions: readonly Dimension[]): ReportFigure | Dimension {
  if (REPORT_FIGURES.some((figure) => figure.id === sort)) return sort as ReportFigure;
  if (isDimension(sort) && dimensions.includes(sort)) return sort;
  return dimensions[0] === 'day' || dimensions[0] === 'hour' ? dimensions[0] : 'adRequests';
}

/**
 * The period: a preset, or custom dates (both, in order); a report by hour keeps to 7 days (the last 7 of
 * a longer period, said by `clipped`).
 */
export function periodOf(preset: Preset | null, from: string, to: string, hourly: boolean, now: Date): { from: string; to: string; clipped: boolean } {
  let range = preset ? presetRange(preset, now) : isCalendarDate(from) && isCalendarDate(to) && from <= to ? { from, to } : presetRange('7d', now);
  if (hourly && !range.from) range = presetRange('7d', now);
  if (hourly && dayNumber(range.to) - dayNumber(range.from) >= HOUR_DAYS) {
    return { from: daysBefore(range.to, HOUR_DAYS - 1), to: range.to, clipped: true };
  }
  return { ...range, clipped: false };
}
