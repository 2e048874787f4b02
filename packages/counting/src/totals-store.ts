/**
 * The totals in MongoDB (docs/decisions/0013), in the owning service's database: one document per grain
 * (see layout.ts) holding its counts per UTC day, so every totals read is a few lookups by `_id`, whatever
 * the traffic so far. Documents grow with days x grains counted, never with requests.
 *
 *   totals  {_id: <grain>, lastFold, days: {<YYYY-MM-DD>: {adRequests, confirmedDeliveries, clickedLinks,
 *            filtered_head?, filtered_preview_agent?}}, campaignOwnerAccountId?, publisherOwnerAccountId?}
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
import type { AnyBulkWriteOperation, Collection } from 'mongodb';

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

export class TotalsStore {
  private readonly totals: Collection<TotalsDocument>;

  constructor(
    connection: Connection,
    private readonly timeoutMs: number,
  ) {
    if (!connection.db) throw new Error('MongoDB is not connected');
    this.totals = connection.db.collection<TotalsDocument>('totals');
  }

  /** The documents of these grains that exist, by grain. */
  async read(grains: string[]): Promise<Map<string, TotalsDocument>> {
    const found = await this.guarded('totals read', () =>
      // One lookup by `_id` each: an `_id` equality is what every store answers without a scan.
      Promise.all(grains.map((grain) => this.totals.findOne({ _id: grain }, { maxTimeMS: this.timeoutMs }))),
    );
    const documents = new Map<string, TotalsDocument>();
    for (const document of found) if (document) documents.set(document._id, document);
    return documents;
  }

  /** Adds fold `seq` to every grain it counted, once. `owners` maps `c:<id>` / `p:<id>` to accounts. */
  async apply(seq: number, counts: FoldCounts, owners: Map<string, string>): Promise<void> {
    const operations: AnyBulkWriteOperation<TotalsDocument>[] = [];
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
      operations.push({
        updateOne: {
          filter: { _id: grain, lastFold: { $lt: seq } },
          update: { $inc: increments, $set: { lastFold: seq, ...identity } },
          upsert: true,
        },
      });
    }
    if (operations.length === 0) return;
    try {
      await this.totals.bulkWrite(operations, { ordered: false });
    } catch (error) {
      // A document that already applied this fold refuses the upsert's insert: that is the "once".
      const failures = (error as { writeErrors?: unknown[] }).writeErrors;
      if (!Array.isArray(failures) || failures.length === 0 || !failures.every((failure) => isDuplicateKeyError(failure))) throw error;
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
        await this.totals.updateOne(
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
