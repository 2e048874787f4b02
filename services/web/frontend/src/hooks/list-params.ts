/**
 * A list's search, status and (for administrators) owner kept in the address (?q=&status=&owner=), so a
 * filtered view can be reloaded, shared and gone back to. All are the API's own filters.
 */
import { useAddressParams } from './address-params';

export interface ListState {
  search: string;
  status: string;
  /** an account id: its records only (administrators) */
  owner: string;
}

const LIST_PARAMS = { search: 'q', status: 'status', owner: 'owner' } as const;

export function useListParams(): [ListState, (change: Partial<ListState>) => void] {
  const [state, change] = useAddressParams<keyof ListState>(LIST_PARAMS);
  // Typing in the search box replaces the entry instead of adding one per key.
  return [state, (next) => change(next, { replace: next.search !== undefined || next.owner !== undefined })];
}
