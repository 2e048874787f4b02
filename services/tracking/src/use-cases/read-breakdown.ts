import { sumBreakdown } from '@pilot/counting';
import { keptItemsOf, orderedItems, pageOf, type BreakdownItem, type BreakdownQuery } from '../domain/breakdown';
import type { StatsFilter } from '../domain/stats';
import type { TrackingDeps } from './deps';
import { readChosenScopes } from './read-scopes';

export interface BreakdownAnswer {
  items: BreakdownItem[];
  nextCursor: string | null;
}

/**
 * The totals per campaign or platform over the records the filter and the account may see: the day
 * documents of the scopes `stats` would read (one indexed query a scope, of the kept items only when the
 * breakdown is narrowed to some), then what Redis holds that they do not, as for `stats`.
 */
export async function readBreakdown(deps: Pick<TrackingDeps, 'totals' | 'unfolded'>, query: BreakdownQuery, visibleTo: string | undefined): Promise<BreakdownAnswer> {
  const filter: StatsFilter = { ...query.filter, visibleTo };
  const kept = keptItemsOf(query, filter);
  if (kept?.length === 0) return { items: [], nextCursor: null };
  const merged: Record<string, Record<string, number>> = {};
  for (const { stored, parts } of await readChosenScopes(deps, query.by, filter, kept)) {
    for (const [id, kinds] of Object.entries(sumBreakdown(query.by, stored, parts, filter))) {
      const item = (merged[id] ??= {});
      for (const [kind, count] of Object.entries(kinds)) item[kind] = (item[kind] ?? 0) + count;
    }
  }
  return pageOf(orderedItems(merged, query.sort, kept), query);
}
