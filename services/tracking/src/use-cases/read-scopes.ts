import { breakdownGrainOf, type BreakdownDimension, type StoredDay, type UnfoldedPart } from '@pilot/counting';
import { planBreakdown } from '../domain/breakdown';
import { ownersOf, type StatsFilter } from '../domain/stats';
import type { TrackingDeps } from './deps';

/** A scope a breakdown reads: its day documents per item and day, and what Redis holds of its breakdown grain. */
export interface ScopeRead {
  stored: StoredDay[];
  parts: UnfoldedPart[];
}

/**
 * The scopes that answer a breakdown by `by` for the filter and the account (those `stats` would read, the
 * breakdown's own id left out): one indexed query a scope (of the `items` only, when given), then one Redis
 * read of their breakdown grains; the scopes the owners rule out are dropped.
 */
export async function readChosenScopes(deps: Pick<TrackingDeps, 'totals' | 'unfolded'>, by: BreakdownDimension, filter: StatsFilter, items?: readonly number[]): Promise<ScopeRead[]> {
  const plan = planBreakdown(by, filter);
  const stored = await Promise.all(plan.candidates.map((scope) => deps.totals.readScope(by, scope, filter, items)));
  const unfolded = await deps.unfolded.read(
    plan.candidates.map((scope) => breakdownGrainOf(by, scope)),
    plan.ownerSubjects,
  );
  const chosen = new Set(plan.choose(ownersOf(plan.ownerSubjects, unfolded.owners, stored.flat())));
  return plan.candidates.flatMap((scope, index) => {
    if (!chosen.has(scope)) return [];
    const grain = breakdownGrainOf(by, scope);
    return [{ stored: stored[index]!, parts: unfolded.parts.filter((part) => part.grain === grain) }];
  });
}
