/**
 * A list's search, sort, status and page kept in the address (?q=&sort=&status=&page=), so a filtered view
 * can be reloaded, shared and gone back to. Changing the search, sort or status goes back to the first page.
 */
import { useSearchParams } from 'react-router-dom';
import type { ListState } from '../list-view';

function listStateOf(params: URLSearchParams): ListState {
  return {
    search: params.get('q') ?? '',
    sort: params.get('sort') ?? '',
    status: params.get('status') ?? '',
    page: Math.max(0, Number(params.get('page') ?? '1') - 1) || 0,
  };
}

export function useListParams(): [ListState, (change: Partial<ListState>) => void] {
  const [params, setParams] = useSearchParams();
  const change = (next: Partial<ListState>) => {
    // Built on the address as it is now, not as this render saw it: a change made before the page has
    // drawn the one before (clearing the search, then picking a status) must not bring the old one back.
    const merged = { ...listStateOf(new URLSearchParams(window.location.search)), ...next, page: next.page ?? 0 };
    const search = new URLSearchParams();
    if (merged.search) search.set('q', merged.search);
    if (merged.sort) search.set('sort', merged.sort);
    if (merged.status) search.set('status', merged.status);
    if (merged.page > 0) search.set('page', String(merged.page + 1));
    // Typing in the search box replaces the entry instead of adding one per key.
    setParams(search, { replace: next.search !== undefined });
  };
  return [listStateOf(params), change];
}
