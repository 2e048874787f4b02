import { csvHeaderOf, csvLinesOf, groupRows, pageOfRows, type Cell, type ReportAnswer, type ReportQuery } from '../domain/report';
import { cellsOfScopes, cellsOfTotals, reportSourceOf } from '../domain/report-source';
import type { StatsFilter } from '../domain/stats';
import type { CampaignTraitsSource } from './campaign-traits';
import type { TrackingDeps } from './deps';
import type { ReportSnapshot, ReportSnapshots } from './report-snapshots';
import { readCells } from './read-pair-cells';
import { dayOrderSourceOf, readDayPage, rowsInDayOrder, traitsOfCells } from './read-report-in-day-order';
import { readChosenScopes } from './read-scopes';
import { readHourlyStats, readStats } from './read-stats';

/** The documents a CSV in day order reads at a time, a filter: its memory does not grow with the period. */
const CSV_PAGE_SIZE = 5_000;

/**
 * The cells of the coarsest documents that answer the report (domain/report-source.ts): the reader's own
 * grain's days or hours as `stats` reads them, a breakdown's scopes by campaign or by platform, or the
 * campaign-on-platform documents.
 */
async function readSourceCells(deps: Pick<TrackingDeps, 'totals' | 'unfolded'>, query: ReportQuery, filter: StatsFilter): Promise<Iterable<Cell>> {
  const source = reportSourceOf(query);
  const { from, to } = filter;
  if (source.kind === 'totals') {
    const periods = query.by.includes('hour') && from !== undefined && to !== undefined ? (await readHourlyStats(deps, { ...filter, from, to })).hours : (await readStats(deps, filter)).days;
    return cellsOfTotals(periods, filter);
  }
  if (source.kind === 'scope') return cellsOfScopes(source.dimension, await readChosenScopes(deps, source.dimension, filter), filter);
  return readCells(deps, filter, query.by.includes('hour'), await deps.unfolded.readPairs());
}

/**
 * A page of the report's rows and the totals of every row. A report in day order whose rows are documents is
 * read a page at a time (readDayPage); any other reads every row of the period (readReportRows), and with
 * `snapshots`, a next page is cut from the rows its first page read (report-snapshots.ts).
 */
export async function readReport(deps: Pick<TrackingDeps, 'totals' | 'unfolded'>, query: ReportQuery, visibleTo: string | undefined, campaignTraits: CampaignTraitsSource, snapshots?: ReportSnapshots): Promise<ReportAnswer> {
  const filter = { ...query.filter, visibleTo };
  const inDayOrder = dayOrderSourceOf(deps, query, filter);
  if (inDayOrder) return readDayPage(deps, query, filter, inDayOrder, campaignTraits);
  const read = () => readReportRows(deps, query, visibleTo, campaignTraits);
  const { rows, totals } = snapshots ? await snapshots.of(query, visibleTo, read) : await read();
  return { ...pageOfRows(rows, query), totals };
}

/**
 * The report's CSV a part at a time, its header in the first: a report in day order whose rows are
 * documents a store read of them at a time (rowsInDayOrder), so that a year's CSV never sits in memory; any
 * other from every row read first (readReportRows).
 */
export async function* reportCsv(deps: Pick<TrackingDeps, 'totals' | 'unfolded'>, query: ReportQuery, visibleTo: string | undefined, campaignTraits: CampaignTraitsSource, pageSize = CSV_PAGE_SIZE): AsyncGenerator<string> {
  const filter = { ...query.filter, visibleTo };
  const inDayOrder = dayOrderSourceOf(deps, query, filter);
  let header = csvHeaderOf(query.by);
  if (!inDayOrder) {
    yield header + csvLinesOf((await readReportRows(deps, query, visibleTo, campaignTraits)).rows, query.by);
    return;
  }
  for await (const rows of rowsInDayOrder(query, filter, inDayOrder, campaignTraits, await inDayOrder.firstUnfoldedDay(), pageSize, true)) {
    yield header + csvLinesOf(rows, query.by);
    header = '';
  }
  if (header) yield header;
}

/**
 * Every row of the report in the answer's order and the totals of them all. By language or format, the
 * campaigns the cells name are looked up at once (the active campaigns' cache, then the campaign service).
 */
export async function readReportRows(deps: Pick<TrackingDeps, 'totals' | 'unfolded'>, query: ReportQuery, visibleTo: string | undefined, campaignTraits: CampaignTraitsSource): Promise<ReportSnapshot> {
  const cells = [...(await readSourceCells(deps, query, { ...query.filter, visibleTo }))];
  const traits = await traitsOfCells(cells, query, campaignTraits);
  return groupRows(cells, query, (campaignId) => traits.get(campaignId));
}
