/**
 * The totals in MongoDB (docs/decisions/0013), in the owning service's database: one document per grain
 * (see layout.ts) holding its counts per UTC day, so every totals read is a few lookups by `_id`, whatever
 * the traffic so far. Documents grow with days x grains counted, never with requests.
 *
 *   totals_<nn>  {_id: <grain>, lastFold, days: '<JSON of {<YYYY-MM-DD>: {adRequests, confirmedDeliveries,
 *            clickedLinks, filtered_head?, filtered_preview_agent?}}>', campaignOwnerAccountId?, publisherOwnerAccountId?}
 *
 * Measured on FerretDB 1.24 over SQLite, the local and test store (decision 0015): it answers a find by
 * string `_id` from its index but scans the whole collection for every update or replace (its UPDATE
 * does not match the `_id` index), and a filter of more than `_id` alone makes it decode every document
 * in Go; nested documents cost it 5 to 10 times what a string of the same data costs. So the days are
 * stored as one JSON string (documents of the earlier object form are still read), the documents are
 * spread over TOTALS_SHARDS collections by a hash of the grain, and a fold is applied by reading the
 * grain's document by `_id` and replacing it by `_id` alone. On MongoDB all of this costs nothing extra.
 *
 * Folds are applied by one folder at a time (the folder lease), in sequence order, several at once: a
 * grain gets the folds numbered above its `lastFold` in one write that sets `lastFold` to the batch's
 * highest, so a batch applied again after a crash adds to each grain only what it lacks.
 *
 * Raw driver, not a mongoose model (decision 0026): the fold reads and replaces every grain it touches and
 * the stats path reads grains by `_id`; a model measured 0.3 to 0.6 ms more CPU per find or replace
 * (tests/bench/mongoose-overhead.bench.ts), thousands of times per fold.
 */
import { ServiceUnavailableError, withDeadline } from '@pilot/faults';
import { eachLimited, isDuplicateKeyError, KeyedShards, type Connection } from '@pilot/mongo';
import type { FoldCounts } from './journal';
import { parseField, subjectsOf } from './layout';
import type { Collection } from 'mongodb';

export type DayCounts = Record<string, Record<string, number>>;

/** A grain's totals as readers see them (`days` decoded). */
export interface TotalsDocument {
  _id: string;
  lastFold: number;
  days: DayCounts;
  campaignOwnerAccountId?: string;
  publisherOwnerAccountId?: string;
  /** Set once counts of an earlier version's per-event documents were added (mergeInitial). */
  migrated?: boolean;
}

/** As stored: `days` is a JSON string, or an object in documents written before decision 0015. */
type StoredTotals = Omit<TotalsDocument, 'days'> & { days?: string | DayCounts };

/** A claimed fold: its number and its counts. */
export interface Fold {
  seq: number;
  counts: FoldCounts;
}

export interface ApplyOptions {
  /** Asked every few hundred grains; false stops the batch (another folder took over). */
  stillHeld?: () => Promise<boolean>;
}

export class FoldingInterruptedError extends Error {
  constructor() {
    super('the folder lease was lost while applying folds');
    this.name = 'FoldingInterruptedError';
  }
}

/** How many collections the totals are spread over; fixed for a deployment (grains do not move). */
export const TOTALS_SHARDS = 64;

/** Grains written side by side: reads of some overlap writes of others. */
const WRITE_CONCURRENCY = 4;
const GRAINS_BETWEEN_LEASE_CHECKS = 250;

function decodeDays(days: StoredTotals['days']): DayCounts {
  if (days === undefined) return {};
  return typeof days === 'string' ? (JSON.parse(days) as DayCounts) : days;
}

/** Adds `<day>|<kind>` counts into day counts, in place. */
function addFields(days: DayCounts, fields: Map<string, number>): void {
  for (const [field, count] of fields) {
    const parsed = parseField(field);
    if (!parsed || count <= 0) continue;
    const day = (days[parsed.day] ??= {});
    day[parsed.kind] = (day[parsed.kind] ?? 0) + count;
  }
}

export class TotalsStore {
  private readonly shards: KeyedShards<StoredTotals>;

  constructor(
    connection: Connection,
    private readonly timeoutMs: number,
  ) {
    const db = connection.db;
    if (!db) throw new Error('MongoDB is not connected');
    this.shards = new KeyedShards<StoredTotals>(db, 'totals', TOTALS_SHARDS);
  }

  private totalsOf(grain: string): Collection<StoredTotals> {
    return this.shards.of(grain);
  }

  /** How many grain documents there are (for benchmarks and operators; counts every shard). */
  async documentCount(): Promise<number> {
    const counts = await Promise.all(this.shards.all.map((shard) => shard.estimatedDocumentCount()));
    return counts.reduce((sum, count) => sum + count, 0);
  }

  /** The highest fold any grain applied (0 when none): where numbering must go on after Redis lost it. */
  async highestFold(): Promise<number> {
    const tops = await Promise.all(this.shards.all.map((shard) => shard.find({}, { projection: { lastFold: 1 } }).sort({ lastFold: -1 }).limit(1).toArray()));
    return tops.reduce((highest, [top]) => Math.max(highest, top?.lastFold ?? 0), 0);
  }

  /** The documents of these grains that exist, by grain. */
  async read(grains: string[]): Promise<Map<string, TotalsDocument>> {
    const found = await this.guarded('totals read', () =>
      // One lookup by `_id` each: an `_id` equality is what every store answers without a scan.
      Promise.all(grains.map((grain) => this.totalsOf(grain).findOne({ _id: grain }, { maxTimeMS: this.timeoutMs }))),
    );
    const documents = new Map<string, TotalsDocument>();
    for (const document of found) if (document) documents.set(document._id, { ...document, days: decodeDays(document.days) });
    return documents;
  }

  /** Adds fold `seq` to every grain it counted, once (see applyFolds). */
  async apply(seq: number, counts: FoldCounts, owners: Map<string, string>): Promise<void> {
    await this.applyFolds([{ seq, counts }], owners);
  }

  /**
   * Adds every fold of the batch to the grains it counted, once: each grain gets the folds numbered above
   * its `lastFold` in one write, which sets `lastFold` to the batch's highest number. `owners` maps
   * `c:<id>` / `p:<id>` to accounts. One write per grain, not a bulk write: FerretDB 1.24 hangs on a bulk
   * write of more than about 40 operations and stops an unordered one at its first error.
   */
  async applyFolds(folds: Fold[], owners: Map<string, string>, options: ApplyOptions = {}): Promise<void> {
    if (folds.length === 0) return;
    const top = Math.max(...folds.map((fold) => fold.seq));
    const byGrain = new Map<string, Array<{ seq: number; fields: Map<string, number> }>>();
    for (const { seq, counts } of folds) {
      for (const [grain, fields] of counts) {
        let parts = byGrain.get(grain);
        if (!parts) byGrain.set(grain, (parts = []));
        parts.push({ seq, fields });
      }
    }
    await eachLimited([...byGrain], WRITE_CONCURRENCY, async ([grain, parts], index) => {
      if (index > 0 && index % GRAINS_BETWEEN_LEASE_CHECKS === 0 && options.stillHeld && !(await options.stillHeld())) {
        throw new FoldingInterruptedError();
      }
      await this.rewrite(grain, (stored) => {
        const missing = parts.filter((part) => part.seq > (stored?.lastFold ?? 0));
        if (missing.length === 0) return null;
        const days = decodeDays(stored?.days);
        for (const part of missing) addFields(days, part.fields);
        return { ...this.identity(grain, owners, stored), lastFold: top, days };
      });
    });
  }

  /**
   * Adds counts kept by an earlier version (per-event documents) to the grains, once per grain: a grain
   * carries `migrated` afterwards, so a migration run again after a crash adds only what is missing. Run
   * it under the folder's lease (CountFolder.exclusively), so no fold writes the same documents meanwhile.
   */
  async mergeInitial(counts: FoldCounts): Promise<void> {
    for (const [grain, fields] of counts) {
      await this.rewrite(grain, (stored) => {
        if (stored?.migrated) return null;
        const days = decodeDays(stored?.days);
        addFields(days, fields);
        return { ...this.identity(grain, new Map(), stored), lastFold: stored?.lastFold ?? 0, days, migrated: true };
      });
    }
  }

  /** The grain's owner fields: the stored ones, or those `owners` knows. */
  private identity(grain: string, owners: Map<string, string>, stored: StoredTotals | null): Partial<TotalsDocument> {
    const { campaignId, publisherId } = subjectsOf(grain);
    const identity: Partial<TotalsDocument> = {};
    const campaignOwner = stored?.campaignOwnerAccountId ?? (campaignId === undefined ? undefined : owners.get(`c:${campaignId}`));
    const publisherOwner = stored?.publisherOwnerAccountId ?? (publisherId === undefined ? undefined : owners.get(`p:${publisherId}`));
    if (campaignOwner) identity.campaignOwnerAccountId = campaignOwner;
    if (publisherOwner) identity.publisherOwnerAccountId = publisherOwner;
    if (stored?.migrated) identity.migrated = true;
    return identity;
  }

  /**
   * Reads the grain's document by `_id`, and writes what `change` makes of it (nothing when it answers
   * null) by `_id` alone. Only one writer works on a grain at a time (the folder lease); should an insert
   * still meet a document that appeared meanwhile, the change is made again on top of it.
   */
  private async rewrite(grain: string, change: (stored: StoredTotals | null) => Omit<TotalsDocument, '_id'> | null): Promise<void> {
    const totals = this.totalsOf(grain);
    for (let attempt = 1; ; attempt += 1) {
      const stored = await totals.findOne({ _id: grain });
      const next = change(stored);
      if (!next) return;
      const document: StoredTotals = { ...next, _id: grain, days: JSON.stringify(next.days) };
      if (stored) {
        await totals.replaceOne({ _id: grain }, document);
        return;
      }
      try {
        await totals.insertOne(document);
        return;
      } catch (error) {
        if (!isDuplicateKeyError(error) || attempt >= 3) throw error;
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
