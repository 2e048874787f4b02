/**
 * Website placement impressions, kept apart from the network's delivery totals: counted in Redis and
 * folded into this service's own `counts_days` collection by the counting pipeline of @pilot/counting
 * (docs/counting.md), under this service's own Redis namespace, so a count read is one indexed query of
 * a document per day counted, however many impressions there were. Grain `pl:<placementId>`, kind `impressions`, per UTC day.
 */
import { dayOf, grainDaysOf, type CountRecorder, type UnfoldedCounts } from '@pilot/counting';
import type { TotalsStore } from '@pilot/counting/totals';

const KIND = 'impressions';

function grainOf(placementId: string): string {
  return `pl:${placementId}`;
}

export class ImpressionRepository {
  constructor(
    private readonly counts: CountRecorder,
    private readonly unfolded: UnfoldedCounts,
    private readonly totals: TotalsStore,
  ) {}

  async record(placementId: string, at: Date): Promise<void> {
    await this.counts.count([grainOf(placementId)], dayOf(at), KIND, at);
  }

  /** Every impression counted so far: one indexed query of the placement's day documents. */
  async countFor(placementId: string): Promise<number> {
    const grain = grainOf(placementId);
    const stored = (await this.totals.readRange([grain], {})).get(grain);
    const { parts } = await this.unfolded.read([grain]);
    const days = grainDaysOf(stored, parts);
    return Object.values(days).reduce((sum, day) => sum + (day[KIND] ?? 0), 0);
  }
}
