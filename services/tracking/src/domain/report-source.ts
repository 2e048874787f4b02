/**
 * Which stored documents answer a report: the coarsest whose grain names every dimension and filter the
 * report needs, so that a report by day and campaign reads a document per campaign and day, not one per
 * campaign, platform and day. Turns what each source holds into the report's cells. Pure.
 */
import { breakdownCounts, type BreakdownDimension, type StoredDay, type UnfoldedPart } from '@pilot/counting';
import type { Cell, ReportDimension, ReportQuery } from './report';
import type { DayFigures, HourFigures } from './stats';

/**
 * - `totals`: no dimension varies but the time (a campaign or platform fixed by a filter): the reader's own
 *   grain's days or hours, as `stats` reads them;
 * - `scope`: one of campaign and platform varies: the breakdown's day documents by that dimension;
 * - `pairs`: both vary, or one with the hour (the breakdowns keep no hours): the campaign-on-platform documents.
 */
export type ReportSource = { kind: 'totals' } | { kind: 'scope'; dimension: BreakdownDimension } | { kind: 'pairs' };

/** The dimensions a campaign's id decides (its language and format are the campaign's). */
const OF_CAMPAIGN: readonly ReportDimension[] = ['campaign', 'language', 'format'];

export function reportSourceOf(query: Pick<ReportQuery, 'by' | 'filter'>): ReportSource {
  const campaignVaries = query.filter.campaignId === undefined && query.by.some((dimension) => OF_CAMPAIGN.includes(dimension));
  const platformVaries = query.filter.publisherId === undefined && query.by.includes('publisher');
  if ((campaignVaries && platformVaries) || (query.by.includes('hour') && (campaignVaries || platformVaries))) return { kind: 'pairs' };
  if (campaignVaries) return { kind: 'scope', dimension: 'campaign' };
  if (platformVaries) return { kind: 'scope', dimension: 'publisher' };
  return { kind: 'totals' };
}

type Fixed = Pick<ReportQuery['filter'], 'campaignId' | 'publisherId'>;

/** The cells of `stats`' days or hours: the campaign and platform are the filter's (or none). */
export function cellsOfTotals(periods: Array<DayFigures | HourFigures>, fixed: Fixed): Cell[] {
  return periods.map((period) => {
    const { adRequests, confirmedDeliveries, clickedLinks } = period;
    const time = 'date' in period ? { day: period.date } : { day: period.hour.slice(0, 10), hour: period.hour };
    return { campaignId: fixed.campaignId, publisherId: fixed.publisherId, ...time, counts: { adRequests, confirmedDeliveries, clickedLinks } };
  });
}

/**
 * The cells of a breakdown's scopes, an item's day each: its document's counts, plus what Redis holds of
 * the scope's breakdown grain above that document's `lastFold` (as the breakdown adds it), within the range.
 */
export function cellsOfScopes(dimension: BreakdownDimension, scopes: Array<{ stored: StoredDay[]; parts: UnfoldedPart[] }>, filter: Fixed & { from?: string; to?: string }): Cell[] {
  const cells = new Map<string, Cell>();
  const cellOf = (item: number, day: string): Cell => {
    const id = `${item}|${day}`;
    let cell = cells.get(id);
    if (!cell) {
      const subjects = dimension === 'campaign' ? { campaignId: item, publisherId: filter.publisherId } : { campaignId: filter.campaignId, publisherId: item };
      cells.set(id, (cell = { ...subjects, day, counts: {} }));
    }
    return cell;
  };
  for (const { stored, parts } of scopes) {
    for (const { item, day, kind, count } of breakdownCounts(dimension, stored, parts, filter)) {
      const { counts } = cellOf(item, day);
      counts[kind] = (counts[kind] ?? 0) + count;
    }
  }
  return [...cells.values()];
}
