/**
 * The rows of a work table (the campaigns or platforms list): one page of records with their figures for a
 * period, the number of records the filters match, and pages back and forth.
 *
 * - Sorted by creation (newest or oldest first): the list call's page (`sort=`), then the figures of its
 *   records for the period from ONE breakdown call narrowed to their ids (`ids=`): a record not in that
 *   answer had none in the period.
 * - Sorted by a figure (highest first): the breakdown's page in that order, and the records of its ids
 *   from one list call (`ids=`) with the filters, so only records with figures in the period are listed.
 *
 * The count is a call of its own (`count=true`, one row), asked once per filters, not once per page.
 */
import { useEffect, useMemo, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiBody } from '../api';
import type { BreakdownItem, Figure } from '../breakdown-view';
import { PAGE_SIZE, pagePath, type Page } from '../paged-list';
import { presetRange, type Preset } from '../stats-view';
import { useListCount, type ListFilters } from './workspace-lists';

export type WorkSort = 'newest' | 'oldest' | Figure;
export const WORK_SORTS: readonly WorkSort[] = ['newest', 'oldest', 'adRequests', 'confirmedDeliveries', 'clickedLinks'];

export const isFigureSort = (sort: WorkSort): sort is Figure => sort !== 'newest' && sort !== 'oldest';

/** The most records one `ids=` call names. */
const MAX_IDS = 100;

export interface Figures {
  adRequests: number;
  confirmedDeliveries: number;
  clickedLinks: number;
}

export interface WorkRow<T> {
  item: T;
  /** null: not known yet (the figures' call has not answered for this page) */
  figures: Figures | null;
}

export interface WorkTableQuery {
  kind: 'campaigns' | 'publishers';
  filters: ListFilters;
  sort: WorkSort;
  preset: Preset;
}

const BREAKDOWN = '/api/workspace/stats/breakdown';

const figuresOf = (item: BreakdownItem): Figures => ({ adRequests: item.adRequests, confirmedDeliveries: item.confirmedDeliveries, clickedLinks: item.clickedLinks });

export function useWorkTable<T extends { id: number }>({ kind, filters, sort, preset }: WorkTableQuery) {
  const base = `/api/workspace/${kind}`;
  const by = kind === 'campaigns' ? 'campaign' : 'publisher';
  const range = presetRange(preset, new Date());
  const byFigure = isFigureSort(sort);
  // Pages are read with the cursors of the pages before them; new filters, order or period start again.
  const identity = JSON.stringify([kind, filters, sort, range]);
  const [paging, setPaging] = useState<{ identity: string; cursors: Array<string | null> }>({ identity, cursors: [null] });
  const cursors = paging.identity === identity ? paging.cursors : [null];
  useEffect(() => setPaging((before) => (before.identity === identity ? before : { identity, cursors: [null] })), [identity]);
  const cursor = cursors[cursors.length - 1] ?? null;

  const count = useListCount(kind, filters);
  const records = useQuery({
    queryKey: [kind, 'table', 'page', filters, sort, cursor],
    enabled: !byFigure,
    placeholderData: keepPreviousData,
    queryFn: ({ signal }) => apiBody<Page<T>>(pagePath(base, { ...filters, sort }, cursor, PAGE_SIZE), { signal }),
  });
  const pageIds = byFigure ? [] : (records.data?.items ?? []).map((item) => item.id);
  const figures = useQuery({
    queryKey: ['stats', 'breakdown', 'table', by, range, byFigure ? sort : 'ids', byFigure ? cursor : pageIds],
    enabled: byFigure || pageIds.length > 0,
    placeholderData: keepPreviousData,
    queryFn: ({ signal }) =>
      apiBody<Page<BreakdownItem>>(
        byFigure ? pagePath(BREAKDOWN, { by, ...range, sort }, cursor, PAGE_SIZE) : pagePath(BREAKDOWN, { by, ...range, ids: pageIds.join(',') }, null, pageIds.length),
        { signal },
      ),
  });
  const figureIds = byFigure ? (figures.data?.items ?? []).map((item) => item.id) : [];
  const named = useQuery({
    queryKey: [kind, 'table', 'ids', filters, figureIds],
    enabled: byFigure && figureIds.length > 0,
    placeholderData: keepPreviousData,
    queryFn: ({ signal }) => apiBody<Page<T>>(pagePath(base, { ...filters, ids: figureIds.join(',') }, null, MAX_IDS), { signal }),
  });

  const rows = useMemo<Array<WorkRow<T>>>(() => {
    const breakdown = figures.data?.items ?? [];
    if (byFigure) {
      const found = new Map((named.data?.items ?? []).map((item) => [item.id, item]));
      return breakdown.flatMap((entry) => {
        const item = found.get(entry.id);
        return item ? [{ item, figures: figuresOf(entry) }] : [];
      });
    }
    const known = new Map(breakdown.map((entry) => [entry.id, figuresOf(entry)]));
    // A placeholder answer is the previous query's (the table shows it as stale): the rows it names keep its
    // figures until this page's answer, the others are not known yet.
    const answered = figures.data !== undefined && !figures.isPlaceholderData;
    const zero = { adRequests: 0, confirmedDeliveries: 0, clickedLinks: 0 };
    return (records.data?.items ?? []).map((item) => ({ item, figures: known.get(item.id) ?? (answered ? zero : null) }));
  }, [byFigure, figures.data, figures.isPlaceholderData, named.data, records.data]);

  const nextCursor = byFigure ? (figures.data?.nextCursor ?? null) : (records.data?.nextCursor ?? null);
  const pending = byFigure ? figures.isPending || (figureIds.length > 0 && named.isPending) : records.isPending;
  return {
    rows,
    range,
    /** records the filters match (at most 100: `capped` beyond), once counted */
    total: count.total,
    capped: count.capped,
    page: cursors.length,
    loaded: !pending,
    stale: (byFigure ? figures.isPlaceholderData || named.isPlaceholderData : records.isPlaceholderData) || figures.isPlaceholderData,
    error: (byFigure ? (figures.error ?? named.error) : (records.error ?? figures.error)) ?? count.error,
    hasNext: nextCursor !== null,
    hasPrevious: cursors.length > 1,
    next: () => nextCursor !== null && setPaging({ identity, cursors: [...cursors, nextCursor] }),
    previous: () => setPaging({ identity, cursors: cursors.slice(0, -1) }),
    first: () => setPaging({ identity, cursors: [null] }),
  };
}
