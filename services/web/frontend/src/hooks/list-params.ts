/**
 * A list's search, sort, status and page kept in the address (?q=&sort=&status=&page=), so a filtered view
 * can be reloaded, shared and gone back to. Changing the search, sort or status goes back to the first page.
 */
import { useSearchParams } from 'react-router-dom';
import type { ListState } from '../list-view';

export function useListParams(): [ListState, (change: Partial<ListState>) => void] {
  const [params, setParams] = useSearchParams();
  const state: ListState = {
    search: params.get('q') ?? '',
    sort: params.get('sort') ?? '',
    status: params.get('status') ?? '',
    page: Math.max(0, Number(params.get('page') ?? '1') - 1) || 0,
  };
  const change = (next: Partial<ListState>) => {
    const merged = { ...state, ...next, page: next.page ?? 0 };
    const search = new URLSearchParams();
    if (merged.search) search.set('q', merged.search);
    if (merged.sort) search.set('sort', merged.sort);
    if (merged.status) search.set('status', merged.status);
    if (merged.page > 0) search.set('page', String(merged.page + 1));
    // Typing in the search box replaces the entry instead of adding one per key.
    setParams(search, { replace: next.search !== undefined });
  };
  return [state, change];
}
