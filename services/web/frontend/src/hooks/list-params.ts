/**
 * A list's search and status kept in the address (?q=&status=), so a filtered view can be reloaded, shared
 * and gone back to. Both are the API's own filters.
 */
import { useSearchParams } from 'react-router-dom';

export interface ListState {
  search: string;
  status: string;
}

function listStateOf(params: URLSearchParams): ListState {
  return { search: params.get('q') ?? '', status: params.get('status') ?? '' };
}

export function useListParams(): [ListState, (change: Partial<ListState>) => void] {
  const [params, setParams] = useSearchParams();
  const change = (next: Partial<ListState>) => {
    // Built on the address as it is now, not as this render saw it: a change made before the page has
    // drawn the one before (clearing the search, then picking a status) must not bring the old one back.
    const current = new URLSearchParams(window.location.search);
    const merged = { ...listStateOf(current), ...next };
    const search = new URLSearchParams(current);
    for (const [key, value] of [
      ['q', merged.search],
      ['status', merged.status],
    ] as const)
      if (value) search.set(key, value);
      else search.delete(key);
    // Typing in the search box replaces the entry instead of adding one per key.
    setParams(search, { replace: next.search !== undefined });
  };
  return [listStateOf(params), change];
}
