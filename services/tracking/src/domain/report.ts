/**
 * API.md `GET /api/workspace/stats/report`: the totals of `stats` grouped by one to three dimensions.
 * Query validation (the filters as `stats`, `limit` as the breakdown), grouping the cells of the finest
 * grain (a campaign on a platform on a day or hour) into rows, their order, paging and CSV. Pure.
 */
import { TOTAL_KINDS, type TotalKind } from '@pilot/counting';
import { INVALID_LIMIT, limitOf, single } from './breakdown';
import { parseGranularity, parseStatsQuery, type StatsFilter } from './stats';

export const REPORT_DIMENSIONS = ['day', 'hour', 'campaign', 'publisher', 'language', 'format'] as const;
export type ReportDimension = (typeof REPORT_DIMENSIONS)[number];
const MAX_DIMENSIONS = 3;

/** A row's field for each dimension (API.md). */
export const ROW_FIELDS = { day: 'day', hour: 'hour', campaign: 'campaignId', publisher: 'publisherId', language: 'language', format: 'format' } as const;
type RowField = (typeof ROW_FIELDS)[ReportDimension];
type DimensionValue = string | number | null;

export type ReportFigures = Record<TotalKind, number>;
export type ReportRow = Partial<Record<RowField, DimensionValue>> & ReportFigures;

export interface ReportQuery {
  by: ReportDimension[];
  filter: Omit<StatsFilter, 'visibleTo'>;
  sort: TotalKind | ReportDimension;
  limit: number;
  /** The sort key of the last row of the page before, or null from the start. */
  after: DimensionValue[] | null;
  csv: boolean;
}

export type ReportQueryResult = { ok: true; query: ReportQuery } | { ok: false; code: string; detail: string };

const isFigure = (value: string): value is TotalKind => (TOTAL_KINDS as readonly string[]).includes(value);
const isDimension = (value: string): value is ReportDimension => (REPORT_DIMENSIONS as readonly string[]).includes(value);

function parseBy(raw: string | undefined | null): ReportDimension[] | null {
  if (typeof raw !== 'string') return null;
  const by = raw.split(',');
  if (by.length > MAX_DIMENSIONS || new Set(by).size !== by.length || !by.every(isDimension)) return null;
  return by.includes('day') && by.includes('hour') ? null : (by as ReportDimension[]);
}

/** The values a row is ordered by: the sort's (a figure or a dimension), then the dimensions in `by` order. */
export function sortKeyOf(row: ReportRow, by: readonly ReportDimension[], sort: ReportQuery['sort']): DimensionValue[] {
  const head = isFigure(sort) ? row[sort] : (row[ROW_FIELDS[sort]] ?? null);
  return [head, ...by.map((dimension) => row[ROW_FIELDS[dimension]] ?? null)];
}

/** Dimension values ascending, an unknown (null) first; numbers as numbers. */
function compareValues(a: DimensionValue, b: DimensionValue): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a) < String(b) ? -1 : 1;
}

/** The order of the answer: a figure highest first, a dimension ascending, then the dimensions in `by` order. */
export function compareKeys(a: DimensionValue[], b: DimensionValue[], sort: ReportQuery['sort']): number {
  for (let index = 0; index < a.length; index += 1) {
    const order = compareValues(a[index] ?? null, b[index] ?? null);
    if (order !== 0) return index === 0 && isFigure(sort) ? -order : order;
  }
  return 0;
}

/** An opaque cursor: the order it continues (`by` and `sort`) and the sort key of the last row shown; base64url JSON. */
function encodeCursor(query: Pick<ReportQuery, 'by' | 'sort'>, key: DimensionValue[]): string {
  return Buffer.from(JSON.stringify([query.by.join(','), query.sort, ...key])).toString('base64url');
}

function decodeCursor(raw: string, query: Pick<ReportQuery, 'by' | 'sort'>): DimensionValue[] | null {
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(raw)) return null;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(decoded) || decoded.length !== query.by.length + 3 || decoded[0] !== query.by.join(',') || decoded[1] !== query.sort) return null;
  const key = decoded.slice(2) as unknown[];
  const valid = key.every((value) => value === null || typeof value === 'string' || (typeof value === 'number' && Number.isSafeInteger(value)));
  return valid ? (key as DimensionValue[]) : null;
}

/**
 * Validates `by`, `sort`, `limit`, `cursor`, `format` and the filters as `stats` does; `hour` as `stats`
 * with `granularity=hour` (from and to at most 7 days apart, within the hours kept).
 */
export function parseReportQuery(query: Record<string, unknown>, now: Date): ReportQueryResult {
  const by = parseBy(single(query, 'by'));
  if (by === null) {
    return { ok: false, code: 'invalid_dimension', detail: `by must be one to ${MAX_DIMENSIONS} of ${REPORT_DIMENSIONS.join(', ')}, comma-separated, each once, not day with hour` };
  }
  const sortRaw = single(query, 'sort');
  if (sortRaw === null || (sortRaw !== undefined && !isFigure(sortRaw) && !(isDimension(sortRaw) && by.includes(sortRaw)))) {
    return { ok: false, code: 'invalid_sort', detail: `sort must be one of ${TOTAL_KINDS.join(', ')} or a dimension of by` };
  }
  const first = by[0]!;
  const sort = sortRaw ?? (first === 'day' || first === 'hour' ? first : 'adRequests');
  const limit = limitOf(query);
  if (limit === null) return INVALID_LIMIT;
  const format = single(query, 'format');
  if (format !== undefined && format !== 'json' && format !== 'csv') return { ok: false, code: 'invalid_format', detail: 'format must be json or csv' };
  const parsed = parseStatsQuery(query);
  if (!parsed.ok) return parsed;
  if (by.includes('hour')) {
    const hourly = parseGranularity({ granularity: 'hour' }, parsed.filter, now);
    if (!hourly.ok) return hourly;
  }
  const cursorRaw = single(query, 'cursor');
  let after: DimensionValue[] | null = null;
  if (cursorRaw !== undefined) {
    after = cursorRaw === null ? null : decodeCursor(cursorRaw, { by, sort });
    if (after === null) return { ok: false, code: 'invalid_cursor', detail: 'cursor must be a nextCursor of this report, dimensions and sort' };
  }
  return { ok: true, query: { by, filter: parsed.filter, sort, limit, after, csv: format === 'csv' } };
}

/** A campaign's immutable creative fields, when known. */
export interface CampaignTraits {
  language: string;
  format: string;
}

/** Counts of a day (or an hour, ISO 8601) of a campaign, a platform or both (those the source names). */
export interface Cell {
  campaignId?: number;
  publisherId?: number;
  day: string;
  hour?: string;
  counts: Record<string, number>;
}

/** A page of the report's rows, the totals of every row, and the cursor of the next page (null on the last). */
export interface ReportAnswer {
  rows: ReportRow[];
  totals: ReportFigures;
  nextCursor: string | null;
}

/** The rows of the cells grouped by `by` (those with any figure) and the totals of them all, in the answer's order. */
export function groupRows(cells: Iterable<Cell>, query: Pick<ReportQuery, 'by' | 'sort'>, traitsOf: (campaignId: number) => CampaignTraits | undefined): { rows: ReportRow[]; totals: ReportFigures } {
  const rows = new Map<string, ReportRow>();
  const totals: ReportFigures = { adRequests: 0, confirmedDeliveries: 0, clickedLinks: 0 };
  for (const cell of cells) {
    if (!TOTAL_KINDS.some((kind) => (cell.counts[kind] ?? 0) > 0)) continue;
    const traits = cell.campaignId !== undefined && (query.by.includes('language') || query.by.includes('format')) ? traitsOf(cell.campaignId) : undefined;
    const values: Record<ReportDimension, DimensionValue> = {
      day: cell.day,
      hour: cell.hour ?? null,
      campaign: cell.campaignId ?? null,
      publisher: cell.publisherId ?? null,
      language: traits?.language ?? null,
      format: traits?.format ?? null,
    };
    const key = JSON.stringify(query.by.map((dimension) => values[dimension]));
    let row = rows.get(key);
    if (!row) {
      row = { adRequests: 0, confirmedDeliveries: 0, clickedLinks: 0 };
      for (const dimension of query.by) row[ROW_FIELDS[dimension]] = values[dimension];
      rows.set(key, row);
    }
    for (const kind of TOTAL_KINDS) {
      row[kind] += cell.counts[kind] ?? 0;
      totals[kind] += cell.counts[kind] ?? 0;
    }
  }
  const keyed = [...rows.values()].map((row) => ({ row, key: sortKeyOf(row, query.by, query.sort) }));
  keyed.sort((a, b) => compareKeys(a.key, b.key, query.sort));
  return { rows: keyed.map(({ row }) => row), totals };
}

/** The page after the cursor's row (from the start without one) and the cursor of the next (null on the last). */
export function pageOfRows(rows: ReportRow[], query: Pick<ReportQuery, 'by' | 'sort' | 'limit' | 'after'>): { rows: ReportRow[]; nextCursor: string | null } {
  const { after, limit } = query;
  const start = after === null ? 0 : rows.findIndex((row) => compareKeys(sortKeyOf(row, query.by, query.sort), after, query.sort) > 0);
  const page = start < 0 ? [] : rows.slice(start, start + limit);
  const last = page[page.length - 1];
  const more = start >= 0 && start + limit < rows.length;
  return { rows: page, nextCursor: more && last ? encodeCursor(query, sortKeyOf(last, query.by, query.sort)) : null };
}

function csvValue(value: DimensionValue | undefined): string {
  const text = value === null || value === undefined ? '' : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

const csvFieldsOf = (by: readonly ReportDimension[]): Array<RowField | TotalKind> => [...by.map((dimension) => ROW_FIELDS[dimension]), ...TOTAL_KINDS];

/** The CSV's header line (RFC 4180, CRLF): the rows' field names, the dimensions' then the figures'. */
export const csvHeaderOf = (by: readonly ReportDimension[]): string => `${csvFieldsOf(by).join(',')}\r\n`;

/** The CSV's lines of these rows, each ended by CRLF. */
export function csvLinesOf(rows: ReportRow[], by: readonly ReportDimension[]): string {
  const fields = csvFieldsOf(by);
  return rows.map((row) => `${fields.map((field) => csvValue(row[field])).join(',')}\r\n`).join('');
}

/** CSV (RFC 4180, CRLF): the header, then every row. */
export const csvOf = (rows: ReportRow[], by: readonly ReportDimension[]): string => csvHeaderOf(by) + csvLinesOf(rows, by);
