import { parseField, parseHourField, TOTAL_KINDS, type StoredDay, type UnfoldedPair } from '@pilot/counting';
import type { PairQuery } from '@pilot/counting/totals';
import { groupRows, pageOfRows, type Cell, type ReportFigures, type ReportQuery, type ReportRow } from '../domain/report';
import { cellsOfScopes, cellsOfTotals, reportSourceOf } from '../domain/report-source';
import type { StatsFilter } from '../domain/stats';
import type { CampaignTraitsSource } from './campaign-traits';
import type { TrackingDeps } from './deps';
import type { ReportSnapshot, ReportSnapshots } from './report-snapshots';
import { readChosenScopes } from './read-scopes';
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
  return readCells(deps, filter, query.by.includes('hour'));
}

/**
 * The cells of the finest grain over the records the filter and the account may see: the documents of the
 * grains `cp:<campaign>:<publisher>` (one indexed query, two for an account), then what Redis holds of
 * those grains that the documents do not, by each document's `lastFold` as `stats` adds it. A pair only
 * Redis knows is visible by the owners Redis records for its campaign and platform.
 */
async function readCells(deps: Pick<TrackingDeps, 'totals' | 'unfolded'>, query: PairQuery, hourly: boolean): Promise<Iterable<Cell>> {
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
  for (const part of await deps.unfolded.readPairs()) {
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
 * The report's rows (all of them, for CSV, or the page) and the totals of every row. By language or format,
 * the campaigns the cells name are looked up at once (the active campaigns' cache, then the campaign service).
 * With `snapshots`, a next page is cut from the rows its first page read (report-snapshots.ts).
 */
export async function readReport(
  deps: Pick<TrackingDeps, 'totals' | 'unfolded'>,
  query: ReportQuery,
  visibleTo: string | undefined,
  campaignTraits: CampaignTraitsSource,
  snapshots?: ReportSnapshots,
): Promise<ReportAnswer & { all: ReportRow[] }> {
  const read = async (): Promise<ReportSnapshot> => {
    const cells = [...(await readSourceCells(deps, query, { ...query.filter, visibleTo }))];
    const named = query.by.includes('language') || query.by.includes('format') ? cells.flatMap((cell) => (cell.campaignId === undefined ? [] : [cell.campaignId])) : [];
    const traits = named.length > 0 ? await campaignTraits.traitsOf(named) : new Map();
    return groupRows(cells, query, (campaignId) => traits.get(campaignId));
  };
  const { rows, totals } = snapshots ? await snapshots.of(query, visibleTo, read) : await read();
  return { ...pageOfRows(rows, query), totals, all: rows };
}
