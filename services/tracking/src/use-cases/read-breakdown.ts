import { breakdownGrainOf, sumBreakdown } from '@pilot/counting';
import { coveredBy } from '@pilot/counting/totals';
import { keptItemOf, orderedItems, pageOf, planBreakdown, type BreakdownItem, type BreakdownQuery } from '../domain/breakdown';
import { ownersOf, type StatsFilter } from '../domain/stats';
import type { TrackingDeps } from './deps';

export interface BreakdownAnswer {
  items: BreakdownItem[];
  nextCursor: string | null;
}

/**
 * The totals per campaign or platform over the records the filter and the account may see: the
 * breakdown documents of the scopes `stats` would read (at most three per scope and month, taken from the
 * process's decoded copies where they are still current), then what Redis holds that they do not, as for `stats`.
 */
export async function readBreakdown(deps: Pick<TrackingDeps, 'totals' | 'breakdowns' | 'unfolded' | 'clock'>, query: BreakdownQuery, visibleTo: string | undefined): Promise<BreakdownAnswer> {
  const filter: StatsFilter = { ...query.filter, visibleTo };
  const plan = planBreakdown(query.by, filter);
  const firstMonth = await deps.totals.firstMonth();
  const readBoth = async (unconfirmed: boolean) => {
    const stored = await deps.breakdowns.read(query.by, plan.candidates, filter, firstMonth, deps.clock.now(), { unconfirmed });
    const unfolded = await deps.unfolded.read(
      plan.candidates.map((scope) => breakdownGrainOf(query.by, scope)),
      plan.ownerSubjects,
    );
    return { stored, unfolded };
  };
  let { stored, unfolded } = await readBoth(true);
  // A kept document whose later folds Redis let go of meanwhile: read again, MongoDB then Redis.
  if (!coveredBy(stored, unfolded.keptFolds)) ({ stored, unfolded } = await readBoth(false));
  const counts = plan.choose(ownersOf(plan.ownerSubjects, unfolded.owners, [...stored.values()])).map((scope) =>
    sumBreakdown(
      stored.get(scope)?.sides ?? [],
      unfolded.parts.filter((part) => part.grain === breakdownGrainOf(query.by, scope)),
      filter,
    ),
  );
  const merged = counts.reduce((into, scopeCounts) => {
    for (const [id, kinds] of Object.entries(scopeCounts)) {
      const item = (into[id] ??= {});
      for (const [kind, count] of Object.entries(kinds)) item[kind] = (item[kind] ?? 0) + count;
    }
    return into;
  }, {});
  return pageOf(orderedItems(merged, query.sort, keptItemOf(query.by, filter)), query);
}
