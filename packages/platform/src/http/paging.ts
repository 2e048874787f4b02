/**
 * Keyset paging of the workspace's lists and of the audit (API.md "Workspace: campaigns"): the page size,
 * the opaque cursor and the search text, read the same way by every service and the gateway.
 *
 * A cursor is the position of the last item of a page, its sort values (for example `[createdAt, id]`),
 * as base64url JSON. Only the canonical encoding of a position of the expected shape is a cursor: anything
 * else is 400 `invalid_cursor`.
 */
import escapeStringRegexp from 'escape-string-regexp';
import { problems } from '../problems';
import { positiveIntOf } from './request-params';

export const DEFAULT_PAGE_LIMIT = 50;
export const MAX_PAGE_LIMIT = 100;
/** The longest search text `q` (characters). */
export const MAX_SEARCH_LENGTH = 100;
/** The longest cursor read (characters): a position is a date and an id, far shorter. */
const MAX_CURSOR_LENGTH = 512;

/** One page of a list: `nextCursor` asks for the items after the last one, null on the last page. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** What a position holds, value by value: an ISO time, a positive integer id or a string key. */
export type PositionPart = 'time' | 'id' | 'key';
type PartValue<P extends PositionPart> = P extends 'time' ? Date : P extends 'id' ? number : string;
export type Position<S extends readonly PositionPart[]> = { [I in keyof S]: PartValue<S[I]> };

/** `limit`: 1 to `max` (default 50); absent or empty is the default; anything else 400 `invalid_limit`. */
export function pageLimitOf(value: unknown, max = MAX_PAGE_LIMIT): number {
  if (value === undefined || value === '') return DEFAULT_PAGE_LIMIT;
  const limit = positiveIntOf(value);
  if (limit === null || limit > max) throw problems.badRequest('invalid_limit', `limit must be an integer from 1 to ${max}`);
  return limit;
}

/** The opaque cursor of a position. */
export function encodeCursor(position: ReadonlyArray<Date | number | string>): string {
  const values = position.map((value) => (value instanceof Date ? value.toISOString() : value));
  return Buffer.from(JSON.stringify(values), 'utf8').toString('base64url');
}

/** The position a `cursor` parameter names (null when absent or empty); 400 `invalid_cursor` when it is not a cursor of this shape. */
export function decodeCursor<const S extends readonly PositionPart[]>(value: unknown, shape: S): Position<S> | null {
  if (value === undefined || value === '') return null;
  const invalid = () => problems.badRequest('invalid_cursor', 'cursor is not a cursor of this list: pass the nextCursor of a previous page');
  if (typeof value !== 'string' || value.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(value)) throw invalid();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(parsed) || parsed.length !== shape.length) throw invalid();
  const position = shape.map((part, index) => partOf(part, parsed[index]));
  if (position.some((part) => part === null)) throw invalid();
  if (encodeCursor(position as Array<Date | number | string>) !== value) throw invalid();
  return position as unknown as Position<S>;
}

function partOf(part: PositionPart, value: unknown): Date | number | string | null {
  switch (part) {
    case 'time': {
      if (typeof value !== 'string') return null;
      const time = new Date(value);
      return Number.isNaN(time.getTime()) || time.toISOString() !== value ? null : time;
    }
    case 'id':
      return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : null;
    case 'key':
      return typeof value === 'string' && value.length > 0 && value.length <= 200 ? value : null;
  }
}

/**
 * A page from up to `limit + 1` items read in order: the first `limit`, and the cursor of the last of them
 * when there was one more.
 */
export function pageOf<T, V>(read: T[], limit: number, positionOf: (item: T) => ReadonlyArray<Date | number | string>, view: (item: T) => V): Page<V> {
  const items = read.slice(0, limit);
  const last = items[items.length - 1];
  return { items: items.map(view), nextCursor: read.length > limit && last !== undefined ? encodeCursor(positionOf(last)) : null };
}

/**
 * `q`: the search text as a case-insensitive pattern matching it anywhere, its characters taken literally;
 * null when absent or empty; longer than 100 characters or repeated: 400 `invalid_search`.
 */
export function searchPatternOf(value: unknown): RegExp | null {
  if (value === undefined || value === '') return null;
  if (typeof value !== 'string' || value.length > MAX_SEARCH_LENGTH) {
    throw problems.badRequest('invalid_search', `q must be a text of at most ${MAX_SEARCH_LENGTH} characters`);
  }
  return new RegExp(escapeStringRegexp(value), 'i');
}

/** Who may narrow a list to one owner: the caller, as the signed identity names it. */
export interface ListCaller {
  accountId: string;
  admin: boolean;
}

/**
 * `ownerAccountId`: the account whose records a list holds. An administrator lists the whole network (null)
 * or one account; any other account its own records, so naming its own id changes nothing and naming
 * another account's is refused (403 `admin_only`) rather than answered with its own records under that
 * name. Not an account id: 400 `invalid_owner_account_id`.
 */
export function listOwnerOf(value: unknown, caller: ListCaller): string | null {
  if (value !== undefined && value !== '' && (typeof value !== 'string' || !/^[0-9]{1,20}$/.test(value))) {
    throw problems.badRequest('invalid_owner_account_id', 'ownerAccountId must be an account id');
  }
  const named = typeof value === 'string' && value !== '' ? value : null;
  if (caller.admin) return named;
  if (named !== null && named !== caller.accountId) throw problems.forbidden('admin_only', 'Only an administrator may list the records of another account');
  return caller.accountId;
}

/** The most records a list's `ids` filter names. */
export const MAX_LIST_IDS = 100;

/**
 * `ids`: the records a list is narrowed to, comma-separated ids (at most 100), for a page that shows
 * other rows' records by name (a figures table, a report) with one call; null when absent or empty.
 * Anything else: 400 `invalid_ids`.
 */
export function listIdsOf(value: unknown): number[] | null {
  if (value === undefined || value === '') return null;
  const invalid = () => problems.badRequest('invalid_ids', `ids must be up to ${MAX_LIST_IDS} record ids separated by commas`);
  if (typeof value !== 'string') throw invalid();
  const ids = value.split(',').map((part) => positiveIntOf(part));
  if (ids.length > MAX_LIST_IDS || ids.some((id) => id === null)) throw invalid();
  return [...new Set(ids as number[])];
}

/** A list's order: by creation, newest first (the default) or oldest first. */
export type ListOrder = 'newest' | 'oldest';

/** `sort`: `newest` (default) or `oldest`; anything else 400 `invalid_sort`. */
export function listOrderOf(value: unknown): ListOrder {
  if (value === undefined || value === '' || value === 'newest') return 'newest';
  if (value === 'oldest') return 'oldest';
  throw problems.badRequest('invalid_sort', 'sort must be newest or oldest');
}

/** `count`: `true` asks a list for the number of records its filters match (`total`, up to LIST_COUNT_CAP); anything but true, false or empty: 400 `invalid_count`. */
export function listCountOf(value: unknown): boolean {
  if (value === undefined || value === '' || value === 'false') return false;
  if (value === 'true') return true;
  throw problems.badRequest('invalid_count', 'count must be true or false');
}

/**
 * The most records a list's count reaches: beyond it the count says "more than" (`totalCapped`). An
 * account holds at most 100 records, so an owner's counts are exact; a count reads at most what the
 * largest page reads (100), which keeps its cost flat on the local store, where counting thousands of
 * documents takes seconds (decision 0053).
 */
export const LIST_COUNT_CAP = 100;

/** What a list answers with `count=true`: how many records match, `totalCapped` when more than `total`. */
export interface ListCount {
  total: number;
  totalCapped: boolean;
}

/** How a page of a workspace list is read: its order, where it starts (after `[createdAt, id]`), its size, and whether its matches are counted. */
export interface ListRead {
  order: ListOrder;
  after: readonly [Date, number] | null;
  limit: number;
  count: boolean;
}

/** A list call's `sort`, `cursor`, `limit` and `count`, each refused as its own parser says. */
export function listReadOf(query: Record<string, unknown>): ListRead {
  return { order: listOrderOf(query.sort), after: decodeCursor(query.cursor, ['time', 'id']), limit: pageLimitOf(query.limit), count: listCountOf(query.count) };
}

/** A page with its count when one was asked for (`total`, `totalCapped`). */
export function withCount<P extends object>(page: P, counted: { count: number; capped: boolean } | null): P & Partial<ListCount> {
  return counted ? { ...page, total: counted.count, totalCapped: counted.capped } : page;
}

/** What the audit is narrowed by besides its record: one action, and a period of UTC dates (both days included). */
export interface AuditNarrowing {
  action: string | null;
  from: string | null;
  to: string | null;
}

const UTC_DATE = /^\d{4}-\d{2}-\d{2}$/;

function auditDateOf(value: unknown, name: string): string | null {
  if (value === undefined || value === '') return null;
  if (typeof value !== 'string' || !UTC_DATE.test(value) || Number.isNaN(Date.parse(`${value}T00:00:00Z`)) || new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) !== value) {
    throw problems.badRequest('invalid_date', `${name} must be one UTC date, YYYY-MM-DD`);
  }
  return value;
}

/**
 * The audit's `action` (a word of lower-case letters, `-` or `_`: 400 `invalid_action` otherwise), `from`
 * and `to` (UTC dates: 400 `invalid_date`; `from` after `to`: 400 `invalid_date_range`).
 */
export function auditNarrowingOf(query: Record<string, unknown>): AuditNarrowing {
  const action = query.action === undefined || query.action === '' ? null : query.action;
  if (action !== null && (typeof action !== 'string' || !/^[a-z][a-z_-]{0,39}$/.test(action))) throw problems.badRequest('invalid_action', 'action must be one word of the audit, such as approved');
  const from = auditDateOf(query.from, 'from');
  const to = auditDateOf(query.to, 'to');
  if (from !== null && to !== null && from > to) throw problems.badRequest('invalid_date_range', 'from must not be after to');
  return { action, from, to };
}

/** The narrowing as query parameters (those set), for a call that passes it on. */
export function auditNarrowingParams(narrowing: AuditNarrowing, params: URLSearchParams): void {
  for (const name of ['action', 'from', 'to'] as const) {
    const value = narrowing[name];
    if (value !== null) params.set(name, value);
  }
}
