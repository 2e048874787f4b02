import { DAY_MS, dayOf, parseField, parseHourField, TOTAL_KINDS, type DayRange, type StoredDay, type UnfoldedPair } from '@pilot/counting';
import type { DayPage, PairQuery } from '@pilot/counting/totals';
import { planBreakdown } from '../domain/breakdown';
import { compareKeys, groupRows, pageOfRows, sortKeyOf, type CampaignTraits, type Cell, type ReportFigures, type ReportQuery, type ReportRow } from '../domain/report';
import { cellsOfScopes, cellsOfTotals, reportSourceOf } from '../domain/report-source';
import type { StatsFilter } from '../domain/stats';
import type { CampaignTraitsSource } from './campaign-traits';
import type { TrackingDeps } from './deps';
import type { ReportSnapshot, ReportSnapshots } from './report-snapshots';
import { firstUnfoldedDayOf, readChosenScopes } from './read-scopes';
import { readHourlyStats, readStats } from './read-stats';

export interface ReportAnswer {
  rows: ReportRow[];
  totals: ReportFigures;
  nextCursor: string | null;
}

const pairKey = (campaignId: number, publisherId: number) => `${campaignId}:${publisherId}`;

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
 * The cells of the finest grain over the records the filter and the account may see: the documents of the
 * grains `cp:<campaign>:<publisher>` (one indexed query, two for an account), then what Redis holds of
 * those grains that the documents do not, by each document's `lastFold` as `stats` adds it. A pair only
 * Redis knows is visible by the owners Redis records for its campaign and platform.
 */
async function readCells(deps: Pick<TrackingDeps, 'totals'>, query: PairQuery, hourly: boolean, unfolded: UnfoldedPair[]): Promise<Iterable<Cell>> {
  const cells = new Map<string, Cell>();
  const lastFolds = new Map<string, number>();
  const owners = new Map<string, Pick<StoredDay, 'campaignOwnerAccountId' | 'publisherOwnerAccountId'>>();
  const cellOf = (key: { campaignId: number; publisherId: number; day: string }, slot: string, hour?: string): Cell => {
    const id = `${pairKey(key.campaignId, key.publisherId)}:${slot}`;
    let cell = cells.get(id);
    if (!cell) cells.set(id, (cell = { campaignId: key.campaignId, publisherId: key.publisherId, day: key.day, hour, counts: {} }));
    return cell;
  };
  for (const stored of await deps.totals.readPairs(query, hourly)) {
    const document = { ...stored, campaignId: stored.campaignId!, publisherId: stored.publisherId! };
    lastFolds.set(`${pairKey(document.campaignId, document.publisherId)}:${document.day}`, document.lastFold);
    owners.set(pairKey(document.campaignId, document.publisherId), document);
    if (!hourly) Object.assign(cellOf(document, document.day).counts, document.counts);
    else for (const [hour, counts] of Object.entries(document.hours ?? {})) Object.assign(cellOf(document, `${document.day}T${hour}`, `${document.day}T${hour}:00:00.000Z`).counts, counts);
  }
  for (const part of unfolded) {
    if (!visible(part, query, owners.get(pairKey(part.campaignId, part.publisherId)))) continue;
    for (const [field, count] of part.fields) {
      const parsed = hourly ? parseHourField(field) : parseField(field);
      if (!parsed || !(TOTAL_KINDS as readonly string[]).includes(parsed.kind)) continue;
      if ((query.from !== undefined && parsed.day < query.from) || (query.to !== undefined && parsed.day > query.to)) continue;
      const lastFold = lastFolds.get(`${pairKey(part.campaignId, part.publisherId)}:${parsed.day}`) ?? 0;
      if (part.fold <= lastFold) continue;
      const key = { campaignId: part.campaignId, publisherId: part.publisherId, day: parsed.day };
      const hour = 'hour' in parsed ? parsed.hour : undefined;
      const cell = hour === undefined ? cellOf(key, parsed.day) : cellOf(key, `${parsed.day}T${hour}`, `${parsed.day}T${hour}:00:00.000Z`);
      cell.counts[parsed.kind] = (cell.counts[parsed.kind] ?? 0) + count;
    }
  }
  return cells.values();
}

/** Whether an unfolded pair is within the filter and visible to the account (its owners: Redis', else the documents'). */
function visible(part: UnfoldedPair, query: PairQuery, stored: Pick<StoredDay, 'campaignOwnerAccountId' | 'publisherOwnerAccountId'> | undefined): boolean {
  if ((query.campaignId !== undefined && part.campaignId !== query.campaignId) || (query.publisherId !== undefined && part.publisherId !== query.publisherId)) return false;
  if (query.visibleTo === undefined) return true;
  const campaignOwner = part.campaignOwnerAccountId ?? stored?.campaignOwnerAccountId;
  const publisherOwner = part.publisherOwnerAccountId ?? stored?.publisherOwnerAccountId;
  return campaignOwner === query.visibleTo || publisherOwner === query.visibleTo;
}

/**
 * How a report in day order whose every row is a document (by the day, then the campaign and the platform,
 * or the one of them that varies and what the campaign decides) is read a page at a time, when an index
 * holds its documents in that order: the campaign first, or for an account's own platforms the platform
 * first (a breakdown document's other id is null). Null for any other report.
 */
function dayPageOf(deps: Pick<TrackingDeps, 'totals' | 'unfolded'>, query: ReportQuery, filter: StatsFilter): DayPageSource | null {
  if (query.csv || query.sort !== 'day' || query.by[0] !== 'day') return null;
  const source = reportSourceOf(query);
  const ids = query.by.slice(1);
  if (source.kind === 'pairs') {
    const order = ids.join(',') === 'campaign,publisher' ? CAMPAIGN_FIRST : ids.join(',') === 'publisher,campaign' && filter.visibleTo !== undefined ? PLATFORM_FIRST : null;
    return order && { order, readFolded: (range, page) => deps.totals.readPairPage({ ...filter, ...range }, page), readRecent: (range, unfolded) => readCells(deps, { ...filter, ...range }, false, unfolded) };
  }
  const [first, ...decided] = ids;
  if (source.kind !== 'scope' || filter.campaignId !== undefined || filter.publisherId !== undefined || first !== source.dimension) return null;
  if (!decided.every((dimension) => source.dimension === 'campaign' && (dimension === 'language' || dimension === 'format'))) return null;
  const { dimension } = source;
  const scopes = planBreakdown(dimension, filter).candidates;
  return {
    order: dimension === 'publisher' && filter.visibleTo !== undefined ? PLATFORM_FIRST : CAMPAIGN_FIRST,
    readFolded: (range, page) => deps.totals.readScopePage(dimension, scopes, range, page),
    readRecent: async (range) => cellsOfScopes(dimension, await readChosenScopes(deps, dimension, { ...filter, ...range }), { ...filter, ...range }),
  };
}

const CAMPAIGN_FIRST = ['campaignId', 'publisherId'] as const;
const PLATFORM_FIRST = ['publisherId', 'campaignId'] as const;

interface DayPageSource {
  order: DayPage['order'];
  /** The documents within the range after the page's cursor in the order, at most the page's limit a filter. */
  readFolded(range: DayRange, page: DayPage): Promise<StoredDay[]>;
  /** Every cell within the range: the documents and what Redis holds of them (`unfolded`: its pairs, read already). */
  readRecent(range: DayRange, unfolded: UnfoldedPair[]): Promise<Iterable<Cell>>;
}

/**
 * A page of a report whose rows are documents in day order (dayPageOf), read in the order of an index: of
 * the days before the first one Redis holds unfolded counts of (exact as stored), a page and one more a
 * filter from after the cursor, again from the last one read while the documents read hold no figure to
 * show (a platform's day of unfilled requests only); only when they do not fill the page are the later days
 * read whole. Language and format are read for the page's campaigns only. The totals are the reader's own
 * grain's, as `stats` reads them: the same facts counted. Its cost does not grow with the rows of the period.
 */
async function readDayPage(deps: Pick<TrackingDeps, 'totals' | 'unfolded'>, query: ReportQuery, filter: StatsFilter, source: DayPageSource, campaignTraits: CampaignTraitsSource): Promise<ReportAnswer> {
  const [unfolded, stats] = await Promise.all([deps.unfolded.readPairs(), readStats(deps, filter)]);
  const recentFrom = firstUnfoldedDayOf(unfolded);
  const dayBeforeRecent = recentFrom === null ? undefined : dayOf(new Date(Date.parse(recentFrom) - DAY_MS));
  const lastFolded = dayBeforeRecent === undefined || (filter.to !== undefined && filter.to < dayBeforeRecent) ? filter.to : dayBeforeRecent;
  const keyOf = (after: NonNullable<ReportQuery['after']>, dimension: 'day' | 'campaign' | 'publisher') => (query.by.includes(dimension) ? after[1 + query.by.indexOf(dimension)] : null) as never;
  let after: DayPage['after'] = query.after && { day: keyOf(query.after, 'day'), campaignId: keyOf(query.after, 'campaign'), publisherId: keyOf(query.after, 'publisher') };
  const rows: ReportRow[] = [];
  const limit = query.limit + 1;
  let foldedLeft = lastFolded === undefined || filter.from === undefined || filter.from <= lastFolded;
  while (foldedLeft && rows.length < limit) {
    const read = sortedByPage(await source.readFolded({ from: filter.from, to: lastFolded }, { order: source.order, after, limit }), source.order).slice(0, limit);
    rows.push(...(await rowsOf(read.map(cellOfDocument), query, campaignTraits)));
    foldedLeft = read.length === limit;
    const last = read.at(-1);
    if (last) after = { day: last.day, campaignId: last.campaignId, publisherId: last.publisherId };
  }
  if (rows.length < limit && recentFrom !== null && (filter.to === undefined || filter.to >= recentFrom)) {
    const recent = await rowsOf(await source.readRecent({ from: filter.from !== undefined && filter.from > recentFrom ? filter.from : recentFrom, to: filter.to }, unfolded), query, campaignTraits);
    const cursor = query.after;
    rows.push(...(cursor ? recent.filter((row) => compareKeys(sortKeyOf(row, query.by, query.sort), cursor, query.sort) > 0) : recent));
  }
  const { adRequests, confirmedDeliveries, clickedLinks } = stats;
  return { ...pageOfRows(rows.slice(0, limit), { ...query, after: null }), totals: { adRequests, confirmedDeliveries, clickedLinks } };
}

const cellOfDocument = (document: StoredDay): Cell => ({ campaignId: document.campaignId ?? undefined, publisherId: document.publisherId ?? undefined, day: document.day, counts: document.counts });

/** The documents of every filter in one order: the day, then the order's ids (null first, as the index holds them). */
function sortedByPage(documents: StoredDay[], order: DayPage['order']): StoredDay[] {
  const id = (value: number | null) => value ?? -1;
  return documents.sort((a, b) => (a.day < b.day ? -1 : a.day > b.day ? 1 : id(a[order[0]]) - id(b[order[0]]) || id(a[order[1]]) - id(b[order[1]])));
}

/** The report's rows of these cells, in its order. */
async function rowsOf(cells: Iterable<Cell>, query: ReportQuery, campaignTraits: CampaignTraitsSource): Promise<ReportRow[]> {
  const all = [...cells];
  const traits = await traitsOfCells(all, query, campaignTraits);
  return groupRows(all, query, (campaignId) => traits.get(campaignId)).rows;
}

/** By language or format, those of the cells' campaigns, read at once. */
async function traitsOfCells(cells: Cell[], query: ReportQuery, campaignTraits: CampaignTraitsSource): Promise<Map<number, CampaignTraits>> {
  const named = query.by.includes('language') || query.by.includes('format') ? cells.flatMap((cell) => (cell.campaignId === undefined ? [] : [cell.campaignId])) : [];
  return named.length > 0 ? campaignTraits.traitsOf(named) : new Map();
}

/**
 * A page of the report's rows and the totals of every row. A report in day order whose rows are documents is
 * read a page at a time (readDayPage); any other reads every row of the period (readReportRows), and with
 * `snapshots`, a next page is cut from the rows its first page read (report-snapshots.ts).
 */
export async function readReport(deps: Pick<TrackingDeps, 'totals' | 'unfolded'>, query: ReportQuery, visibleTo: string | undefined, campaignTraits: CampaignTraitsSource, snapshots?: ReportSnapshots): Promise<ReportAnswer> {
  const filter = { ...query.filter, visibleTo };
  const dayPage = dayPageOf(deps, query, filter);
  if (dayPage) return readDayPage(deps, query, filter, dayPage, campaignTraits);
  const read = () => readReportRows(deps, query, visibleTo, campaignTraits);
  const { rows, totals } = snapshots ? await snapshots.of(query, visibleTo, read) : await read();
  return { ...pageOfRows(rows, query), totals };
}

/**
 * Every row of the report in the answer's order (the CSV's) and the totals of them all. By language or
 * format, the campaigns the cells name are looked up at once (the active campaigns' cache, then the campaign service).
 */
export async function readReportRows(deps: Pick<TrackingDeps, 'totals' | 'unfolded'>, query: ReportQuery, visibleTo: string | undefined, campaignTraits: CampaignTraitsSource): Promise<ReportSnapshot> {
  const cells = [...(await readSourceCells(deps, query, { ...query.filter, visibleTo }))];
  const traits = await traitsOfCells(cells, query, campaignTraits);
  return groupRows(cells, query, (campaignId) => traits.get(campaignId));
}
