/**
 * A breakdown report for a period (GET /api/workspace/stats/breakdown), a page at a time in the order of
 * the chosen figure, and the previous period of equal length read once for the change figures.
 */
import { useMemo } from 'react';
import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { apiBody } from '../api';
import { breakdownRows, previousRange, type BreakdownItem, type Figure } from '../breakdown-view';
import { nextCursorOf, pagePath, pagedItems, type Page } from '../paged-list';

export interface BreakdownQuery {
  by: 'campaign' | 'publisher';
  range: { from: string; to: string };
  sort: Figure;
  campaignId?: string;
  publisherId?: string;
}

/** The most rows of the previous period read to find the change of the rows shown. */
export const PREVIOUS_ROWS = 100;

const BASE = '/api/workspace/stats/breakdown';

export function useBreakdown(request: BreakdownQuery) {
  const filters = { by: request.by, campaignId: request.campaignId, publisherId: request.publisherId, sort: request.sort };
  const current = useInfiniteQuery({
    queryKey: ['stats', 'breakdown', filters, request.range],
    initialPageParam: null as string | null,
    getNextPageParam: (page: Page<BreakdownItem>) => nextCursorOf(page),
    placeholderData: keepPreviousData,
    queryFn: ({ pageParam, signal }) => apiBody<Page<BreakdownItem>>(pagePath(BASE, { ...filters, ...request.range }, pageParam), { signal }),
  });
  const before = previousRange(request.range);
  const previous = useQuery({
    queryKey: ['stats', 'breakdown', filters, before, 'previous'],
    enabled: before !== null,
    queryFn: ({ signal }) => apiBody<Page<BreakdownItem>>(pagePath(BASE, { ...filters, ...before }, null, PREVIOUS_ROWS), { signal }),
  });
  const hasPrevious = before !== null;
  // The same rows while the answers are the same: the table recomputes (and resets its state) on new rows.
  const rows = useMemo(
    () => breakdownRows(pagedItems(current.data?.pages, (item) => item.id), hasPrevious && previous.data ? previous.data.items : null, previous.data?.nextCursor === null),
    [current.data, previous.data, hasPrevious],
  );
  return {
    rows,
    previous: before,
    loaded: Boolean(current.data),
    isPending: current.isPending,
    stale: current.isPlaceholderData,
    error: current.error ?? previous.error,
    hasMore: current.hasNextPage,
    loadingMore: current.isFetchingNextPage,
    loadMore: () => void current.fetchNextPage(),
  };
}
