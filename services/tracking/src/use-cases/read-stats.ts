import { grainDaysOf } from '@pilot/counting';
import { ownersOf, planStats, sumHours, sumStats, type HourlyStatsAnswer, type StatsAnswer, type StatsFilter } from '../domain/stats';
import type { TrackingDeps } from './deps';

/**
 * The totals over the records the filter and the account may see: MongoDB's documents first (one per
 * grain and day of the range, one indexed query per grain), then what Redis holds that they do not.
 */
export async function readStats(deps: Pick<TrackingDeps, 'totals' | 'unfolded'>, filter: StatsFilter): Promise<StatsAnswer> {
  const plan = planStats(filter);
  const stored = await deps.totals.readRange(plan.candidates, filter);
  const unfolded = await deps.unfolded.read(plan.candidates, plan.ownerSubjects);
  const grains = plan.choose(ownersOf(plan.ownerSubjects, unfolded.owners, [...stored.values()])).map((grain) =>
    grainDaysOf(
      stored.get(grain),
      unfolded.parts.filter((part) => part.grain === grain),
    ),
  );
  return sumStats(grains, filter);
}

/**
 * The totals by the hour of a range of at most 8 days (validated by the caller): the day documents of
 * each grain with their hours (one indexed query per grain), then what Redis holds that they do not; the plan's owners as for `readStats`.
 */
export async function readHourlyStats(deps: Pick<TrackingDeps, 'totals' | 'unfolded'>, filter: StatsFilter & { from: string; to: string }): Promise<HourlyStatsAnswer> {
  const plan = planStats(filter);
  const stored = await deps.totals.readRange(plan.candidates, filter, true);
  const unfolded = await deps.unfolded.read(plan.candidates, plan.ownerSubjects);
  const grains = plan.choose(ownersOf(plan.ownerSubjects, unfolded.owners, [...stored.values()])).map((grain) =>
    grainDaysOf(
      stored.get(grain),
      unfolded.parts.filter((part) => part.grain === grain),
      true,
    ),
  );
  return sumHours(grains, filter);
}
