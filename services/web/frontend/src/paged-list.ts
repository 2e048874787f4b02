/**
 * The workspace's paged calls (lists, audit, breakdown): each answers `{items, nextCursor}`, the next page
 * asked with `cursor`. Pages are shown one after the other ("Load more"); nothing asks for a whole list.
 */
import type { Page } from './api';

export type { Page };

/** Rows a list shows per call. */
export const PAGE_SIZE = 25;

/** The call for one page: the filters that have a value, the page size, and the cursor after the first page. */
export function pagePath(base: string, filters: Record<string, string | undefined>, cursor: string | null, limit = PAGE_SIZE): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(filters)) if (value) search.set(key, value);
  search.set('limit', String(limit));
  if (cursor) search.set('cursor', cursor);
  return `${base}?${search.toString()}`;
}

/**
 * The rows of the pages loaded so far, in order; a row that a later page repeats (a record that moved
 * while paging, e.g. a figure that grew) is shown once, where it was first seen.
 */
export function pagedItems<T>(pages: ReadonlyArray<Page<T>> | undefined, key: (item: T) => string | number): T[] {
  const seen = new Set<string | number>();
  const rows: T[] = [];
  for (const page of pages ?? [])
    for (const item of page.items) {
      const id = key(item);
      if (seen.has(id)) continue;
      seen.add(id);
      rows.push(item);
    }
  return rows;
}

/** The cursor of the page after the last one loaded; undefined when the last page has been reached. */
export function nextCursorOf<T>(page: Page<T>): string | undefined {
  return page.nextCursor ?? undefined;
}
