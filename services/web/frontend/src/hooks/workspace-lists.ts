/**
 * The workspace's list calls, paged by the API (`{items, nextCursor}`): the search, the status and the
 * owner are the API's filters, and further pages are loaded on demand. Every key starts with the record's
 * word ('campaigns', 'publishers'), so a decision refreshes every list of that kind.
 */
import { keepPreviousData, useInfiniteQuery, useQuery, type InfiniteData, type QueryClient } from '@tanstack/react-query';
import { apiBody } from '../api';
import { PAGE_SIZE, nextCursorOf, pagePath, pagedItems, type Page } from '../paged-list';
import type { Campaign, Publisher } from '../types';

export interface ListFilters {
  status?: string;
  q?: string;
  ownerAccountId?: string;
}

export interface PagedList<T> {
  items: T[];
  /** the first page has been answered */
  loaded: boolean;
  isPending: boolean;
  error: unknown;
  hasMore: boolean;
  loadingMore: boolean;
  loadMore: () => void;
  /** the rows on screen are those of the previous filters while the new ones load */
  stale: boolean;
}

function usePagedList<T extends { id: number }>(kind: 'campaigns' | 'publishers', filters: ListFilters, enabled: boolean, limit: number): PagedList<T> {
  const list = useInfiniteQuery({
    queryKey: [kind, 'list', filters, limit],
    enabled,
    initialPageParam: null as string | null,
    getNextPageParam: (page: Page<T>) => nextCursorOf(page),
    placeholderData: keepPreviousData,
    queryFn: ({ pageParam, signal }) => apiBody<Page<T>>(pagePath(`/api/workspace/${kind}`, { ...filters }, pageParam, limit), { signal }),
  });
  return {
    items: pagedItems(list.data?.pages, (item) => item.id),
    loaded: Boolean(list.data),
    isPending: list.isPending && enabled,
    error: list.error,
    hasMore: list.hasNextPage,
    loadingMore: list.isFetchingNextPage,
    loadMore: () => void list.fetchNextPage(),
    stale: list.isPlaceholderData,
  };
}

export function useCampaignList(filters: ListFilters = {}, { enabled = true, limit = PAGE_SIZE } = {}) {
  return usePagedList<Campaign>('campaigns', filters, enabled, limit);
}

export function usePublisherList(filters: ListFilters = {}, { enabled = true, limit = PAGE_SIZE } = {}) {
  return usePagedList<Publisher>('publishers', filters, enabled, limit);
}

/**
 * How many records a list's filters match (`count=true`, one row asked): `total` (at most 100, `capped`
 * beyond), null until answered. Asked once per filters, not once per page.
 */
export function useListCount(kind: 'campaigns' | 'publishers', filters: ListFilters, enabled = true): { total: number | null; capped: boolean; error: unknown } {
  const count = useQuery({
    queryKey: [kind, 'count', filters],
    enabled,
    queryFn: ({ signal }) => apiBody<Page<unknown> & { total?: number; totalCapped?: boolean }>(pagePath(`/api/workspace/${kind}`, { ...filters, count: 'true' }, null, 1), { signal }),
  });
  return { total: count.data?.total ?? null, capped: count.data?.totalCapped ?? false, error: count.error };
}

/**
 * Takes records that have left a status out of the cached lists of that status at once, so what the page
 * says happened and what it shows agree; the refetch that follows confirms it.
 */
export function dropFromStatusLists(client: QueryClient, kind: 'campaigns' | 'publishers', status: string, ids: ReadonlySet<number>): void {
  if (ids.size === 0) return;
  client.setQueriesData<InfiniteData<Page<{ id: number }>>>(
    { queryKey: [kind, 'list'], predicate: (query) => (query.queryKey[2] as ListFilters | undefined)?.status === status },
    (data) => data && { ...data, pages: data.pages.map((page) => ({ ...page, items: page.items.filter((item) => !ids.has(item.id)) })) },
  );
}
