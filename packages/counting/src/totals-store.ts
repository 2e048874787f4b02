/**
 * The totals in MongoDB (docs/decisions/0013), in the owning service's database: one document per grain
 * (see layout.ts) holding its counts per UTC day, so every totals read is a few lookups by `_id`, whatever
 * the traffic so far. Documents grow with days x grains counted, never with requests.
 *
 *   totals_<nn>  {_id: <grain>, lastFold, days: {<YYYY-MM-DD>: {adRequests, confirmedDeliveries, clickedLinks,
 *            filtered_head?, filtered_preview_agent?}}, campaignOwnerAccountId?, publisherOwnerAccountId?}
 *
 * The documents are spread over TOTALS_SHARDS collections `totals_<nn>` by a hash of the grain: FerretDB
 * 1.24 over SQLite answers a find by string `_id` from its index but scans the whole collection for every
 * update (measured: 30 ms with 2,000 documents, 290 ms with 20,000), so an update costs in proportion to its
 * shard, not to every grain ever counted. On MongoDB the split costs nothing.
 *
 * Folds are applied by one folder at a time, in sequence order. Applying fold s to a document is one
 * update filtered on `lastFold < s` that sets `lastFold: s`: a fold applied again after a crash changes
 * nothing (on MongoDB the filter and update are atomic per document; FerretDB's are not, which is why only
 * one folder works at a time, under a lease, and never on the same fold as another).
 */
import { ServiceUnavailableError, withDeadline } from '@pilot/faults';
import { isDuplicateKeyError, type Connection } from '@pilot/mongo';
import type { FoldCounts } from './journal';
import { parseField, subjectsOf } from './layout';
import type { Collection } from 'mongodb';

export type DayCounts = Record<string, Record<string, number>>;

export interface TotalsDocument {
  _id: string;
  lastFold: number;
  days: DayCounts;
  campaignOwnerAccountId?: string;
  publisherOwnerAccountId?: string;
  /** Set once counts of an earlier version's per-event documents were added (mergeInitial). */
  migrated?: boolean;
}

/** How many collections the totals are spread over; fixed for a deployment (grains do not move). */
export const TOTALS_SHARDS = 64;

/** FNV-1a: a cheap, stable hash of a grain name. */
function shardOf(grain: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < grain.length; i += 1) {
    hash ^= grain.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % TOTALS_SHARDS;
}

export class TotalsStore {
  private readonly shards: Collection<TotalsDocument>[];

  constructor(
    connection: Connection,
    private readonly timeoutMs: number,
  ) {
    const db = connection.db;
    if (!db) throw new Error('MongoDB is not connected');
    this.shards = Array.from({ length: TOTALS_SHARDS }, (_, index) => db.collection<TotalsDocument>(`totals_${String(index).padStart(2, '0')}`));
  }

  private totalsOf(grain: string): Collection<TotalsDocument> {
    return this.shards[shardOf(grain)]!;
  }

  /** How many grain documents there are (for benchmarks and operators; counts every shard). */
  async documentCount(): Promise<number> {
    const counts = await Promise.all(this.shards.map((shard) => shard.estimatedDocumentCount()));
    return counts.reduce((sum, count) => sum + count, 0);
  }

  /** The highest fold any grain applied (0 when none): where numbering must go on after Redis lost it. */
  async highestFold(): Promise<number> {
    const tops = await Promise.all(this.shards.map((shard) => shard.find({}, { projection: { lastFold: 1 } }).sort({ lastFold: -1 }).limit(1).toArray()));
    return tops.reduce((highest, [top]) => Math.max(highest, top?.lastFold ?? 0), 0);
  }

  /** The documents of these grains that exist, by grain. */
  async read(grains: string[]): Promise<Map<string, TotalsDocument>> {
    const found = await this.guarded('totals read', () =>
      // One lookup by `_id` each: an `_id` equality is what every store answers without a scan.
      Promise.all(grains.map((grain) => this.totalsOf(grain).findOne({ _id: grain }, { maxTimeMS: this.timeoutMs }))),
    );
    const documents = new Map<string, TotalsDocument>();
    for (const document of found) if (document) documents.set(document._id, document);
    return documents;
  }

  /**
   * Adds fold `seq` to every grain it counted, once. `owners` maps `c:<id>` / `p:<id>` to accounts. One
   * update per grain, not a bulk write: FerretDB 1.24 hangs on a bulk write of more than about 40 updates
   * and stops an unordered one at its first error, which would skip the grains after an applied one.
   */
  async apply(seq: number, counts: FoldCounts, owners: Map<string, string>): Promise<void> {
    for (const [grain, fields] of counts) {
      const increments: Record<string, number> = {};
      for (const [field, count] of fields) {
        const parsed = parseField(field);
        if (parsed && count > 0) increments[`days.${parsed.day}.${parsed.kind}`] = count;
      }
      if (Object.keys(increments).length === 0) continue;
      const { campaignId, publisherId } = subjectsOf(grain);
      const identity: Record<string, string> = {};
      const campaignOwner = campaignId === undefined ? undefined : owners.get(`c:${campaignId}`);
      const publisherOwner = publisherId === undefined ? undefined : owners.get(`p:${publisherId}`);
      if (campaignOwner) identity.campaignOwnerAccountId = campaignOwner;
      if (publisherOwner) identity.publisherOwnerAccountId = publisherOwner;
      try {
        await this.totalsOf(grain).updateOne({ _id: grain, lastFold: { $lt: seq } }, { $inc: increments, $set: { lastFold: seq, ...identity } }, { upsert: true });
      } catch (error) {
        // A document that applied this fold already refuses the upsert's insert: that is the "once".
        if (!isDuplicateKeyError(error)) throw error;
      }
    }
  }

  /**
   * Adds counts kept by an earlier version (per-event documents) to the grains, once per grain: a grain
   * carries `migrated` afterwards, so a migration run again after a crash adds only what is missing. Run
   * it under the folder's lease (CountFolder.exclusively), so no fold writes the same documents meanwhile.
   */
  async mergeInitial(counts: FoldCounts): Promise<void> {
    for (const [grain, fields] of counts) {
      const increments: Record<string, number> = {};
      for (const [field, count] of fields) {
        const parsed = parseField(field);
        if (parsed && count > 0) increments[`days.${parsed.day}.${parsed.kind}`] = count;
      }
      try {
        await this.totalsOf(grain).updateOne(
          { _id: grain, migrated: { $ne: true } },
          { $inc: increments, $set: { migrated: true }, $setOnInsert: { lastFold: 0 } },
          { upsert: true },
        );
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error; // merged already
      }
    }
  }

  private async guarded<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await withDeadline(work(), this.timeoutMs, 'mongodb');
    } catch (error) {
      if (error instanceof ServiceUnavailableError) throw error;
      throw new ServiceUnavailableError('mongodb', `${what} failed: ${(error as Error).message}`);
    }
  }
}
