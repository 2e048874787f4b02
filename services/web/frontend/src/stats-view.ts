/**
 * What the totals panels compute from a stats answer:
 * the two rates, the date presets as UTC date ranges, and the per-day rows as CSV.
 */
import { daysBefore } from './calendar-days';
import { formatShare } from './format';
import type { Stats } from './types';

/** Click-through rate: links opened among the deliveries the publishers confirmed. */
export function clickThroughRate(totals: Pick<Stats, 'clickedLinks' | 'confirmedDeliveries'>): string | null {
  return formatShare(totals.clickedLinks, totals.confirmedDeliveries);
}

/** Confirmation rate: confirmed deliveries among the ad requests answered with an ad. */
export function confirmationRate(totals: Pick<Stats, 'confirmedDeliveries' | 'adRequests'>): string | null {
  return formatShare(totals.confirmedDeliveries, totals.adRequests);
}

export const PRESETS = [
  { id: 'today', label: 'Today' },
  { id: '7d', label: 'Last 7 days' },
  { id: '30d', label: 'Last 30 days' },
  { id: 'all', label: 'All time' },
] as const;
export type Preset = (typeof PRESETS)[number]['id'];

/** The UTC date range of a preset, ending today (UTC); "all" has no bounds. 7 days are today and the 6 before. */
export function presetRange(preset: Preset, now: Date): { from: string; to: string } {
  if (preset === 'all') return { from: '', to: '' };
  const days = preset === 'today' ? 1 : preset === '7d' ? 7 : 30;
  const to = now.toISOString().slice(0, 10);
  const from = daysBefore(to, days - 1);
  return { from, to };
}

/** The preset a range is, if any (so a range typed by hand that matches one shows it pressed). */
export function presetOf(range: { from: string; to: string }, now: Date): Preset | null {
  return PRESETS.map((preset) => preset.id).find((id) => {
    const candidate = presetRange(id, now);
    return candidate.from === range.from && candidate.to === range.to;
  }) ?? null;
}

/** The per-day rows as CSV (RFC 4180, header first, CRLF line ends); dates are UTC. */
export function daysCsv(days: Stats['days']): string {
  const lines = ['date,ad_requests,confirmed_deliveries,clicked_links'];
  for (const day of days) lines.push([day.date, day.adRequests, day.confirmedDeliveries, day.clickedLinks].join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** A file name for the CSV of a range: "pilot-campaign-7-2026-05-01-to-2026-05-07.csv". */
export function csvFileName(subject: string, range: { from: string; to: string }, days: Stats['days']): string {
  const from = range.from || days[0]?.date || 'start';
  const to = range.to || days[days.length - 1]?.date || 'now';
  return `pilot-${subject.replace(/[^a-z0-9-]+/gi, '-')}-${from}-to-${to}.csv`;
}
