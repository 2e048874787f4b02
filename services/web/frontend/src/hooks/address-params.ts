/**
 * A page's filters kept in the address (`?name=value`), so a filtered view can be reloaded, shared and gone
 * back to. Each filter is a string; an empty one is left out of the address.
 */
import { useSearchParams } from 'react-router-dom';

/** Each filter's name in the page's state, and its parameter's name in the address. */
export type AddressNames<K extends string> = Readonly<Record<K, string>>;

export function filtersOf<K extends string>(params: URLSearchParams, names: AddressNames<K>): Record<K, string> {
  return Object.fromEntries(Object.entries<string>(names).map(([key, name]) => [key, params.get(name) ?? ''])) as Record<K, string>;
}

/** The address's parameters with `change` applied: its filters set or, when empty, removed; any other parameter kept. Pure. */
export function addressWith<K extends string>(current: URLSearchParams, names: AddressNames<K>, change: Partial<Record<K, string>>): URLSearchParams {
  const next = new URLSearchParams(current);
  for (const [key, value] of Object.entries<string | undefined>(change)) {
    const name = names[key as K];
    if (value === undefined || name === undefined) continue;
    if (value) next.set(name, value);
    else next.delete(name);
  }
  return next;
}

/**
 * The address a change asked for while the router has not moved to it yet: `from` is the address it was
 * asked at. The router moves after a tick, so a second change made before then (a From date, then a To
 * date) builds on the first one's address, not on the one still shown.
 */
let pending: { from: string; to: string } | null = null;

/** The parameters a change builds on: the last change's, while the address is still the one it was made at. Exported for its test. */
export function baseSearch(current: string, waiting: { from: string; to: string } | null = pending): string {
  return waiting !== null && waiting.from === current ? waiting.to : current;
}

export function useAddressParams<K extends string>(names: AddressNames<K>): [Record<K, string>, (change: Partial<Record<K, string>>, options?: { replace?: boolean }) => void] {
  const [params, setParams] = useSearchParams();
  const change = (next: Partial<Record<K, string>>, options: { replace?: boolean } = {}) => {
    // Built on the address as it is now (or about to be), not as this render saw it: a change made before the
    // page has drawn the one before (clearing the search, then picking a status) must not bring the old value back.
    const current = window.location.search;
    const search = `?${addressWith(new URLSearchParams(baseSearch(current)), names, next).toString()}`;
    pending = { from: current, to: search };
    setParams(new URLSearchParams(search), { replace: options.replace ?? false });
  };
  return [filtersOf(params, names), change];
}
