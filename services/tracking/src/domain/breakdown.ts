/**
 * API.md `GET /api/workspace/stats/breakdown`: the totals of `stats` per campaign or per platform. Query
 * validation, which scopes answer it for an account (those `stats` would read, less the breakdown's own
 * dimension), and the ordering and paging of the items. Pure.
 */
import { TOTAL_KINDS, UNFILLED_KIND, type BreakdownDimension, type ItemCounts, type TotalKind } from '@pilot/counting';
import { listIdsOf, MAX_LIST_IDS } from '@pilot/platform';
import { parseStatsQuery, planStats, type Figures, type StatsFilter, type StatsPlan } from './stats';

export interface BreakdownItem extends Figures {
  id: number;
}

export interface BreakdownQuery {
  by: BreakdownDimension;
  filter: Omit<StatsFilter, 'visibleTo'>;
  /** The items the answer is narrowed to (`ids`), or null for every item. */
  ids: number[] | null;
  sort: TotalKind;
  limit: number;
  /** Where the page starts: after this item of the order. */
  after: PageMark | null;
}

export interface PageMark {
  value: number;
  id: number;
}

export const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 100;

export type BreakdownQueryResult = { ok: true; query: BreakdownQuery } | { ok: false; code: string; detail: string };

/** A query parameter given once: its value; undefined when absent or empty; null when repeated. */
export function single(query: Record<string, unknown>, name: string): string | undefined | null {
  const value = query[name];
  if (value === undefined || value === '') return undefined;
  return typeof value === 'string' ? value : null;
}

/**
 * The cursor names the order it continues (dimension and sort) and the last item of the page before, so
 * that a page never repeats or skips an item as long as the totals do not change; base64url JSON.
 */
export function encodeCursor(by: BreakdownDimension, sort: TotalKind, mark: PageMark): string {
  return Buffer.from(JSON.stringify([by, sort, mark.value, mark.id])).toString('base64url');
}

function decodeCursor(raw: string, by: BreakdownDimension, sort: TotalKind): PageMark | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(raw)) return null;
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(decoded) || decoded.length !== 4) return null;
  const [cursorBy, cursorSort, value, id] = decoded as unknown[];
  if (cursorBy !== by || cursorSort !== sort) return null;
  if (!Number.isSafeInteger(value) || (value as number) < 0 || !Number.isSafeInteger(id) || (id as number) < 1) return null;
  return { value: value as number, id: id as number };
}

/** `limit`: DEFAULT_LIMIT when absent, null when it is not an integer from 1 to MAX_LIMIT. */
export function limitOf(query: Record<string, unknown>): number | null {
  const raw = single(query, 'limit');
  if (raw === undefined) return DEFAULT_LIMIT;
  const limit = raw !== null && /^[0-9]{1,3}$/.test(raw) ? Number(raw) : 0;
  return limit < 1 || limit > MAX_LIMIT ? null : limit;
}

export const INVALID_LIMIT = { ok: false, code: 'invalid_limit', detail: `limit must be an integer from 1 to ${MAX_LIMIT}` } as const;

/** `ids`: up to MAX_LIST_IDS item ids separated by commas, as the lists take them; undefined when it is not that. */
function idsOf(query: Record<string, unknown>): number[] | null | undefined {
  try {
    return listIdsOf(query.ids);
  } catch {
    return undefined;
  }
}

/** Validates `by`, `sort`, `limit`, `cursor`, `ids`, and the filters as `stats` does. */
export function parseBreakdownQuery(query: Record<string, unknown>): BreakdownQueryResult {
  const by = single(query, 'by');
  if (by !== 'campaign' && by !== 'publisher') return { ok: false, code: 'invalid_breakdown', detail: 'by must be campaign or publisher' };
  const sortRaw = single(query, 'sort');
  if (sortRaw !== undefined && !(TOTAL_KINDS as readonly (string | null)[]).includes(sortRaw)) {
    return { ok: false, code: 'invalid_sort', detail: `sort must be one of ${TOTAL_KINDS.join(', ')}` };
  }
  const sort = (sortRaw ?? 'adRequests') as TotalKind;
  const limit = limitOf(query);
  if (limit === null) return INVALID_LIMIT;
  const ids = idsOf(query);
  if (ids === undefined) return { ok: false, code: 'invalid_ids', detail: `ids must be up to ${MAX_LIST_IDS} ${by} ids separated by commas` };
  const parsed = parseStatsQuery(query);
  if (!parsed.ok) return parsed;
  const cursorRaw = single(query, 'cursor');
  let after: PageMark | null = null;
  if (cursorRaw !== undefined) {
    after = cursorRaw === null ? null : decodeCursor(cursorRaw, by, sort);
    if (after === null) return { ok: false, code: 'invalid_cursor', detail: 'cursor must be a nextCursor of this breakdown and sort' };
  }
  return { ok: true, query: { by, filter: parsed.filter, ids, sort, limit, after } };
}

/**
 * Which scopes answer a breakdown: those `stats` reads for the same filter without the breakdown's own
 * id (a campaign breakdown of an account's records is its campaigns' records plus those on its
 * platforms, whatever the campaign filter), whose items are then kept to that id.
 */
export function planBreakdown(by: BreakdownDimension, filter: StatsFilter): StatsPlan {
  return planStats(by === 'campaign' ? { ...filter, campaignId: undefined } : { ...filter, publisherId: undefined });
}

/**
 * The items a breakdown is narrowed to: the filter's id of its own dimension, the `ids` asked, both (the
 * ids that are both), or undefined for every item.
 */
export function keptItemsOf(query: Pick<BreakdownQuery, 'by' | 'ids'>, filter: StatsFilter): number[] | undefined {
  const fixed = query.by === 'campaign' ? filter.campaignId : filter.publisherId;
  if (fixed === undefined) return query.ids ?? undefined;
  return query.ids === null || query.ids.includes(fixed) ? [fixed] : [];
}

/** The items with any count, in the order of the answer: `sort` highest first, then id. */
export function orderedItems(counts: ItemCounts, sort: TotalKind, kept?: readonly number[]): BreakdownItem[] {
  const keep = kept && new Set(kept);
  const items: BreakdownItem[] = [];
  for (const [rawId, kinds] of Object.entries(counts)) {
    const id = Number(rawId);
    if (keep && !keep.has(id)) continue;
    const item: BreakdownItem = {
      id,
      adRequests: kinds.adRequests ?? 0,
      confirmedDeliveries: kinds.confirmedDeliveries ?? 0,
      clickedLinks: kinds.clickedLinks ?? 0,
      unfilledAdRequests: kinds[UNFILLED_KIND] ?? 0,
    };
    if (item.adRequests > 0 || item.confirmedDeliveries > 0 || item.clickedLinks > 0 || item.unfilledAdRequests > 0) items.push(item);
  }
  return items.sort((a, b) => b[sort] - a[sort] || a.id - b.id);
}

/** The page after `after` (from the start when null) and the cursor of the next one (null on the last). */
export function pageOf(items: BreakdownItem[], query: Pick<BreakdownQuery, 'by' | 'sort' | 'limit' | 'after'>): { items: BreakdownItem[]; nextCursor: string | null } {
  const { after, sort, limit } = query;
  const start = after === null ? 0 : items.findIndex((item) => item[sort] < after.value || (item[sort] === after.value && item.id > after.id));
  const page = start < 0 ? [] : items.slice(start, start + limit);
  const last = page[page.length - 1];
  const more = start >= 0 && start + limit < items.length;
  return { items: page, nextCursor: more && last ? encodeCursor(query.by, sort, { value: last[sort], id: last.id }) : null };
}
