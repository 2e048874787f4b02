import { breakdownGrainOf, sumBreakdown } from '@pilot/counting';
import { keptItemOf, orderedItems, pageOf, planBreakdown, type BreakdownItem, type BreakdownQuery } from '../domain/breakdown';
import { ownersOf, type StatsFilter } from '../domain/stats';
import type { TrackingDeps } from './deps';

export interface BreakdownAnswer {
  items: BreakdownItem[];
  nextCursor: string | null;
}

/**
 * The totals per campaign or platform over the records the filter and the account may see: the day
 * documents of the scopes `stats` would read (one indexed query a scope), then what Redis holds that they
 * do not, as for `stats`.
 */
export async function readBreakdown(deps: Pick<TrackingDeps, 'totals' | 'unfolded'>, query: BreakdownQuery, visibleTo: string | undefined): Promise<BreakdownAnswer> {
  const filter: StatsFilter = { ...query.filter, visibleTo };
  const plan = planBreakdown(query.by, filter);
  const stored = await Promise.all(plan.candidates.map((scope) => deps.totals.readScope(query.by, scope, filter)));
  const unfolded = await deps.unfolded.read(
    plan.candidates.map((scope) => breakdownGrainOf(query.by, scope)),
    plan.ownerSubjects,
  );
  const chosen = new Set(plan.choose(ownersOf(plan.ownerSubjects, unfolded.owners, stored)));
  const merged: Record<string, Record<string, number>> = {};
  plan.candidates.forEach((scope, index) => {
    if (!chosen.has(scope)) return;
    const grain = breakdownGrainOf(query.by, scope);
    const counts = sumBreakdown(
      stored[index]!.items,
      unfolded.parts.filter((part) => part.grain === grain),
      filter,
    );
    for (const [id, kinds] of Object.entries(counts)) {
      const item = (merged[id] ??= {});
      for (const [kind, count] of Object.entries(kinds)) item[kind] = (item[kind] ?? 0) + count;
    }
  });
  return pageOf(orderedItems(merged, query.sort, keptItemOf(query.by, filter)), query);
}
