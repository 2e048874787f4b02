/**
 * A list's search and status kept in the address (?q=&status=), so a filtered view can be reloaded, shared
 * and gone back to. Both are the API's own filters.
 */
import { useAddressParams } from './address-params';

export interface ListState {
  search: string;
  status: string;
}

const LIST_PARAMS = { search: 'q', status: 'status' } as const;

export function useListParams(): [ListState, (change: Partial<ListState>) => void] {
  const [state, change] = useAddressParams<keyof ListState>(LIST_PARAMS);
  // Typing in the search box replaces the entry instead of adding one per key.
  return [state, (next) => change(next, { replace: next.search !== undefined })];
}
