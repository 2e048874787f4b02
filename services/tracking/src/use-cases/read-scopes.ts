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
 * breakdown's own id left out): one Redis read of their breakdown grains, then one indexed query a scope; the
 * scopes the owners rule out are dropped. Narrowed to `items`, the store sums the items' days before the
 * first day Redis holds unfolded counts of, and sends the documents of the others.
 */
export async function readChosenScopes(deps: Pick<TrackingDeps, 'totals' | 'unfolded'>, by: BreakdownDimension, filter: StatsFilter, items?: readonly number[]): Promise<ScopeRead[]> {
  const plan = planBreakdown(by, filter);
  const grains = plan.candidates.map((scope) => breakdownGrainOf(by, scope));
  const unfolded = await deps.unfolded.read(grains, plan.ownerSubjects);
  const recentFrom = items ? (firstUnfoldedDayOf(unfolded.parts) ?? undefined) : undefined;
  const stored = await Promise.all(plan.candidates.map((scope) => deps.totals.readScope(by, scope, filter, items, recentFrom)));
  const chosen = new Set(plan.choose(ownersOf(plan.ownerSubjects, unfolded.owners, stored.flat())));
  return plan.candidates.flatMap((scope, index) => {
    if (!chosen.has(scope)) return [];
    const grain = grains[index]!;
    return [{ stored: stored[index]!, parts: unfolded.parts.filter((part) => part.grain === grain) }];
  });
}

/** The first day any of the parts counts on, or null (every field of a count starts with its day, `YYYY-MM-DD`). */
export function firstUnfoldedDayOf(parts: Iterable<{ fields: Map<string, number> }>): string | null {
  let first: string | null = null;
  for (const part of parts) {
    for (const field of part.fields.keys()) {
      const day = field.slice(0, 10);
      if (first === null || day < first) first = day;
    }
  }
  return first;
}
