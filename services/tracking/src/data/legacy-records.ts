/**
 * Before decision 0013, every counted fact was a document of `records` (and every filtered visit one of
 * `filtered_clicks`). At start, their counts are added once to the grains they belong to and the two
 * collections are dropped, so totals carry over an upgrade. Run under the folder's lease.
 */
import { grainsOf, type CountKind, type FoldCounts, type TotalsStore } from '@pilot/counting';
import { modelOf, storedSchema, wholeModelScan, type Connection } from '@pilot/mongo';

interface LegacyRecord {
  kind: 'allocation' | 'confirmation' | 'click';
  campaignId: number;
  publisherId: number;
  campaignOwnerAccountId: string;
  publisherOwnerAccountId: string;
  day: string;
}

/** A visit the filters turned away, one document each. */
interface FilteredVisit {
  reason: string;
  at: Date;
}

const recordSchema = storedSchema<LegacyRecord>({
  kind: String,
  campaignId: Number,
  publisherId: Number,
  campaignOwnerAccountId: String,
  publisherOwnerAccountId: String,
  day: String,
});
const filteredSchema = storedSchema<FilteredVisit>({ reason: String, at: Date });

function legacyModels(connection: Connection) {
  return { records: modelOf(connection, 'records', recordSchema), filtered: modelOf(connection, 'filtered_clicks', filteredSchema) };
}

const KIND_OF: Record<LegacyRecord['kind'], CountKind> = { allocation: 'adRequests', confirmation: 'confirmedDeliveries', click: 'clickedLinks' };

function add(counts: FoldCounts, grains: string[], field: string): void {
  for (const grain of grains) {
    const fields = counts.get(grain) ?? new Map<string, number>();
    fields.set(field, (fields.get(field) ?? 0) + 1);
    counts.set(grain, fields);
  }
}

/** True when the earlier version left per-event documents behind (a cheap check, no lease needed). */
export async function hasLegacyRecords(connection: Connection): Promise<boolean> {
  const { records, filtered } = legacyModels(connection);
  const counts = await Promise.all([records.estimatedDocumentCount(), filtered.estimatedDocumentCount()]);
  return counts.some((count) => count > 0);
}

/** The number of documents carried over (0 when there was nothing to migrate). */
export async function migrateLegacyRecords(connection: Connection, totals: TotalsStore): Promise<number> {
  const { records, filtered } = legacyModels(connection);
  const [recordCount, filteredCount] = await Promise.all([records.estimatedDocumentCount(), filtered.estimatedDocumentCount()]);
  if (recordCount + filteredCount === 0) return 0;
  const counts: FoldCounts = new Map();
  for await (const record of records.find({}, null, wholeModelScan(records)).lean<LegacyRecord>().cursor()) {
    const kind = KIND_OF[record.kind];
    if (!kind) continue;
    const allocation = { ...record, allocatedAt: new Date(`${record.day}T00:00:00Z`) };
    add(counts, grainsOf(allocation, kind), `${record.day}|${kind}`);
  }
  for await (const visit of filtered.find({}, null, wholeModelScan(filtered)).lean<FilteredVisit>().cursor()) {
    add(counts, ['all'], `${visit.at.toISOString().slice(0, 10)}|filtered_${visit.reason}`);
  }
  await totals.mergeInitial(counts);
  if (recordCount > 0) await records.collection.drop();
  if (filteredCount > 0) await filtered.collection.drop();
  return recordCount + filteredCount;
}
