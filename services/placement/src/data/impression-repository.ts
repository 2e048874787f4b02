/**
 * Website placement impressions, kept apart from the network's delivery totals: counted in Redis and
 * folded into this service's own `totals` collection by the counting pipeline of @pilot/counting
 * (docs/decisions/0013), under this service's own Redis namespace, so a count read is one lookup by key
 * however many impressions there were. Grain `pl:<placementId>`, kind `impressions`, per UTC day.
 */
import { dayOf, grainDaysOf, type TotalsStore, type CountRecorder, type UnfoldedCounts } from '@pilot/counting';
import { modelOf, storedSchema, wholeModelScan, type Connection, type Model } from '@pilot/mongo';

const KIND = 'impressions';

/** A document of `impressions`, one per impression, as releases before decision 0013 wrote them. */
interface LegacyImpression {
  placementId: string;
  at: Date;
}

const legacySchema = storedSchema<LegacyImpression>({ placementId: String, at: Date });

function legacyImpressions(connection: Connection): Model<LegacyImpression> {
  return modelOf(connection, 'impressions', legacySchema);
}

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

  async countFor(placementId: string): Promise<number> {
    const grain = grainOf(placementId);
    const stored = (await this.totals.read([grain])).get(grain);
    const { parts } = await this.unfolded.read([grain]);
    const days = grainDaysOf(stored?.days, stored?.lastFold ?? 0, parts);
    return Object.values(days).reduce((sum, day) => sum + (day[KIND] ?? 0), 0);
  }

  /**
   * Before counting moved to Redis, every impression was a document of `impressions`. Their counts are
   * added to the grains once (TotalsStore.mergeInitial), then the collection is dropped; a start that dies
   * half-way adds only what is missing. Run it under the folder lease.
   */
  static async hasDocuments(connection: Connection): Promise<boolean> {
    return (await legacyImpressions(connection).estimatedDocumentCount()) > 0;
  }

  static async migrateDocuments(connection: Connection, totals: TotalsStore): Promise<number> {
    const legacy = legacyImpressions(connection);
    const byGrain = new Map<string, Map<string, number>>();
    for await (const impression of legacy.find({}, { placementId: 1, at: 1 }, wholeModelScan(legacy)).lean<LegacyImpression>().cursor()) {
      const grain = grainOf(impression.placementId);
      const fields = byGrain.get(grain) ?? new Map<string, number>();
      const field = `${dayOf(impression.at)}|${KIND}`;
      fields.set(field, (fields.get(field) ?? 0) + 1);
      byGrain.set(grain, fields);
    }
    await totals.mergeInitial(byGrain);
    await legacy.collection.drop();
    return byGrain.size;
  }
}
