import { breakdownGrainOf, DAY_MS, dayOf, dayPartsOf, type DayRange, type StoredDay, type UnfoldedPair } from '@pilot/counting';
import type { DayPage } from '@pilot/counting/totals';
import { planBreakdown } from '../domain/breakdown';
import { compareKeys, groupRows, pageOfRows, sortKeyOf, type CampaignTraits, type Cell, type ReportAnswer, type ReportQuery, type ReportRow } from '../domain/report';
import { cellsOfScopes, reportSourceOf } from '../domain/report-source';
import type { StatsFilter } from '../domain/stats';
import type { CampaignTraitsSource } from './campaign-traits';
import type { TrackingDeps } from './deps';
import { readCells } from './read-pair-cells';
import { firstUnfoldedDayOf, readChosenScopes } from './read-scopes';
import { readStats } from './read-stats';

type Deps = Pick<TrackingDeps, 'totals' | 'unfolded'>;

/** Where a report in day order whose rows are documents reads them (dayOrderSourceOf). */
export interface DayOrderSource {
  order: DayPage['order'];
  /** The first day Redis holds counts of the source's grains on (from it on, the documents may lack some), or null. */
  firstUnfoldedDay(): Promise<string | null>;
  /** The documents within the range after the page's cursor in the order, at most the page's limit a filter. */
  readFolded(range: DayRange, page: DayPage): Promise<StoredDay[]>;
  /** Every cell within the range: the documents and what Redis holds of them. */
  readRecent(range: DayRange): Promise<Iterable<Cell>>;
}

const CAMPAIGN_FIRST = ['campaignId', 'publisherId'] as const;
const PLATFORM_FIRST = ['publisherId', 'campaignId'] as const;

/**
 * How a report in day order whose every row is a document (by the day, then the campaign and the platform,
 * or the one of them that varies and what the campaign decides) is read in the order of an index: the
 * campaign first, or for an account's own platforms the platform first (a breakdown document's other id is
 * null). Null for any other report.
 */
export function dayOrderSourceOf(deps: Deps, query: ReportQuery, filter: StatsFilter): DayOrderSource | null {
  if (query.sort !== 'day' || query.by[0] !== 'day') return null;
  const source = reportSourceOf(query);
  const ids = query.by.slice(1);
  if (source.kind === 'pairs') {
    const order = ids.join(',') === 'campaign,publisher' ? CAMPAIGN_FIRST : ids.join(',') === 'publisher,campaign' && filter.visibleTo !== undefined ? PLATFORM_FIRST : null;
    let pairs: Promise<UnfoldedPair[]> | undefined;
    const unfolded = () => (pairs ??= deps.unfolded.readPairs());
    return (
      order && {
        order,
        firstUnfoldedDay: async () => firstUnfoldedDayOf(await unfolded()),
        readFolded: (range, page) => deps.totals.readPairPage({ ...filter, ...range }, page),
        readRecent: async (range) => readCells(deps, { ...filter, ...range }, false, await unfolded()),
      }
    );
  }
  const [first, ...decided] = ids;
  if (source.kind !== 'scope' || filter.campaignId !== undefined || filter.publisherId !== undefined || first !== source.dimension) return null;
  if (!decided.every((dimension) => source.dimension === 'campaign' && (dimension === 'language' || dimension === 'format'))) return null;
  const { dimension } = source;
  const scopes = planBreakdown(dimension, filter).candidates;
  return {
    order: dimension === 'publisher' && filter.visibleTo !== undefined ? PLATFORM_FIRST : CAMPAIGN_FIRST,
    firstUnfoldedDay: async () => firstUnfoldedDayOf((await deps.unfolded.read(scopes.map((scope) => breakdownGrainOf(dimension, scope)))).parts),
    readFolded: (range, page) => deps.totals.readScopePage(dimension, scopes, range, page),
    readRecent: async (range) => cellsOfScopes(dimension, await readChosenScopes(deps, dimension, { ...filter, ...range }), { ...filter, ...range }),
  };
}

/**
 * The rows of a report in day order from after its cursor, a store read at a time: of the days before the
 * first one Redis holds unfolded counts of (exact as stored), `pageSize` documents a filter at a time in the
 * index's order; a read whose documents hold no figure to show (a platform's day of unfilled requests only)
 * yields nothing and the next goes on from its last document. With `readAhead` (a caller that reads every
 * row), the folded days are read in parts of their days (dayPartsOf), every part's first read sent at once
 * and each next read as soon as the one before arrives: the store reads the parts side by side, and holds
 * at most a read a part ahead of the caller. Then the later days, read whole. Language and format are read
 * for each read's campaigns only.
 */
export async function* rowsInDayOrder(query: ReportQuery, filter: StatsFilter, source: DayOrderSource, campaignTraits: CampaignTraitsSource, recentFrom: string | null, pageSize: number, readAhead = false): AsyncGenerator<ReportRow[]> {
  const dayBeforeRecent = recentFrom === null ? undefined : dayOf(new Date(Date.parse(recentFrom) - DAY_MS));
  const lastFolded = dayBeforeRecent === undefined || (filter.to !== undefined && filter.to < dayBeforeRecent) ? filter.to : dayBeforeRecent;
  const keyOf = (after: NonNullable<ReportQuery['after']>, dimension: 'day' | 'campaign' | 'publisher') => (query.by.includes(dimension) ? after[1 + query.by.indexOf(dimension)] : null) as never;
  const after: DayPage['after'] = query.after && { day: keyOf(query.after, 'day'), campaignId: keyOf(query.after, 'campaign'), publisherId: keyOf(query.after, 'publisher') };
  const readsOf = (range: DayRange, from: DayPage['after']) => readsInOrder((next) => source.readFolded(range, { order: source.order, after: next, limit: pageSize }).then((documents) => sortedByPage(documents, source.order).slice(0, pageSize)), from, pageSize, readAhead);
  const folded = { from: filter.from, to: lastFolded };
  const parts = lastFolded !== undefined && filter.from !== undefined && filter.from > lastFolded ? [] : readAhead ? dayPartsOf(folded) : [folded];
  const reads = parts.map((part, index) => readsOf(part, index === 0 ? after : null));
  for (const nextRead of reads) {
    for (let read = await nextRead(); read; read = await nextRead()) {
      const rows = await rowsOf(read.map(cellOfDocument), query, campaignTraits);
      if (rows.length > 0) yield rows;
    }
  }
  if (recentFrom !== null && (filter.to === undefined || filter.to >= recentFrom)) {
    const recent = await rowsOf(await source.readRecent({ from: filter.from !== undefined && filter.from > recentFrom ? filter.from : recentFrom, to: filter.to }), query, campaignTraits);
    const cursor = query.after;
    yield cursor ? recent.filter((row) => compareKeys(sortKeyOf(row, query.by, query.sort), cursor, query.sort) > 0) : recent;
  }
}

/**
 * A page of a report in day order whose rows are documents (dayOrderSourceOf): its rows and one more read
 * in the index's order (rowsInDayOrder, a page and one a read), the later days Redis holds counts of only
 * when the earlier ones do not fill it. The totals are the reader's own grain's, as `stats` reads them: the
 * same facts counted. Its cost does not grow with the rows of the period.
 */
export async function readDayPage(deps: Deps, query: ReportQuery, filter: StatsFilter, source: DayOrderSource, campaignTraits: CampaignTraitsSource): Promise<ReportAnswer> {
  const [recentFrom, stats] = await Promise.all([source.firstUnfoldedDay(), readStats(deps, filter)]);
  const rows: ReportRow[] = [];
  for await (const read of rowsInDayOrder(query, filter, source, campaignTraits, recentFrom, query.limit + 1)) {
    rows.push(...read);
    if (rows.length > query.limit) break;
  }
  const { adRequests, confirmedDeliveries, clickedLinks } = stats;
  return { ...pageOfRows(rows.slice(0, query.limit + 1), { ...query, after: null }), totals: { adRequests, confirmedDeliveries, clickedLinks } };
}

/**
 * The reads of a range in the index's order from after `from`, one at a time until one is short; with
 * `ahead`, the first is sent at once and each next one as soon as the one before arrives.
 */
function readsInOrder(read: (after: DayPage['after']) => Promise<StoredDay[]>, from: DayPage['after'], pageSize: number, ahead: boolean): () => Promise<StoredDay[] | null> {
  const send = (after: DayPage['after']) => {
    const reading = read(after);
    reading.catch(() => undefined); // a read ahead the caller stopped before awaiting fails unobserved
    return reading;
  };
  let pending: Promise<StoredDay[]> | (() => Promise<StoredDay[]>) | null = ahead ? send(from) : () => read(from);
  return async () => {
    if (pending === null) return null;
    const documents = await (typeof pending === 'function' ? pending() : pending);
    const last = documents.at(-1);
    const after = last ? { day: last.day, campaignId: last.campaignId, publisherId: last.publisherId } : null;
    pending = documents.length < pageSize ? null : ahead ? send(after) : () => read(after);
    return documents;
  };
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
export async function traitsOfCells(cells: Cell[], query: ReportQuery, campaignTraits: CampaignTraitsSource): Promise<Map<number, CampaignTraits>> {
  const named = query.by.includes('language') || query.by.includes('format') ? cells.flatMap((cell) => (cell.campaignId === undefined ? [] : [cell.campaignId])) : [];
  return named.length > 0 ? campaignTraits.traitsOf(named) : new Map();
}
