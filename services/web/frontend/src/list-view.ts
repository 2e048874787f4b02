/**
 * Search, sort, per-status counts and paging of a workspace list (issue 20), done in the browser over the
 * list the API returns (API.md defines no paging or search parameters; an account has at most 100 records
 * of a kind, and the network's lists are read whole by the administrator).
 */

export const LIST_PAGE_SIZE = 20;

export interface ListRecord {
  id: number;
  status: string;
  createdAt: string;
}

export interface SortOption<T> {
  id: string;
  label: string;
  compare: (a: T, b: T) => number;
}

const byNewest = (a: ListRecord, b: ListRecord) => b.createdAt.localeCompare(a.createdAt) || b.id - a.id;

/**
 * The orders every list offers; `name` is the text a record is known by (its name, its link). No option
 * says "Status": the order's select sits in its label, and the word would name it like the status filter.
 */
export function sortOptions<T extends ListRecord>(nameLabel: string, name: (item: T) => string, statusOrder: readonly string[]): Array<SortOption<T>> {
  return [
    { id: 'newest', label: 'Newest first', compare: byNewest },
    { id: 'oldest', label: 'Oldest first', compare: (a, b) => -byNewest(a, b) },
    { id: 'name', label: nameLabel, compare: (a, b) => name(a).localeCompare(name(b), undefined, { sensitivity: 'base' }) || a.id - b.id },
    { id: 'status', label: 'Stage (draft first)', compare: (a, b) => statusOrder.indexOf(a.status) - statusOrder.indexOf(b.status) || byNewest(a, b) },
  ];
}

/** Every word of the search appears in the record's text (case and accents ignored); "#12" finds id 12. */
export function matchesSearch(text: string, search: string): boolean {
  const fold = (value: string) => value.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
  const haystack = fold(text);
  return fold(search)
    .split(/\s+/)
    .filter(Boolean)
    .every((word) => haystack.includes(word));
}

export interface ListState {
  search: string;
  sort: string;
  status: string;
  page: number;
}

export interface ListView<T> {
  /** the records of the page shown */
  rows: T[];
  /** how many match the search and the status */
  total: number;
  /** the page shown, within the pages there are */
  page: number;
  /** how many match the search, per status, and all of them under '' */
  counts: Record<string, number>;
}

export function listView<T extends ListRecord>(items: readonly T[], state: ListState, text: (item: T) => string, sorts: Array<SortOption<T>>, size = LIST_PAGE_SIZE): ListView<T> {
  const found = items.filter((item) => matchesSearch(`#${item.id} ${text(item)}`, state.search));
  const counts: Record<string, number> = { '': found.length };
  for (const item of found) counts[item.status] = (counts[item.status] ?? 0) + 1;
  const shown = state.status ? found.filter((item) => item.status === state.status) : found;
  const sort = sorts.find((option) => option.id === state.sort) ?? sorts[0];
  const sorted = sort ? [...shown].sort(sort.compare) : shown;
  const lastPage = Math.max(0, Math.ceil(sorted.length / size) - 1);
  const page = Math.min(Math.max(0, Math.floor(state.page) || 0), lastPage);
  return { rows: sorted.slice(page * size, (page + 1) * size), total: sorted.length, page, counts };
}
