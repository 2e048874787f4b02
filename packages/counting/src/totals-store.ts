/**
 * The totals in MongoDB (docs/counting.md), in the owning service's database: one document per grain
 * (see layout.ts) and UTC month, holding the month's counts per day, so a totals read is one lookup by
 * `_id` per grain and month asked for, whatever the traffic so far.
 *
 *   totals        {_id: '<grain>|<YYYY-MM>', grain, month: 'YYYY-MM', lastFold, days: {<YYYY-MM-DD>:
 *                 {adRequests?, confirmedDeliveries?, clickedLinks?, unfilledAdRequests?, filtered_head?,
 *                 filtered_preview_agent?, impressions?}}, campaignOwnerAccountId?, publisherOwnerAccountId?}
 *                 index {grain: 1, month: 1} (for a report or an operator; reads go by `_id`)
 *   totals_folder {_id: 'folder', appliedThrough, firstMonth}: the highest fold any document may hold (new
 *                 folds are numbered above it, whatever Redis remembers) and the first month counted (an
 *                 all-time read looks up the months from there to now). Written before the documents of
 *                 a batch, so it never lags behind them.
 *
 * Folds are applied by one folder at a time (the folder lease), in sequence order, several at once: a
 * document gets the folds numbered above its `lastFold` in one write that sets `lastFold` to the highest
 * of them, so a batch applied again after a crash adds to each document only what it lacks. A write reads
 * the document by `_id` and replaces it by `_id` (or inserts it, many in one command): nothing relies on
 * `$inc` or a conditional update being atomic, which FerretDB's are not.
 *
 * The schemas declare the documents and their indexes; the fold and the reads use the driver's collection
 * of the model (a model costs 0.3 to 0.6 ms more CPU per find or replace, thousands of
 * times per fold).
 */
import { createDeclaredIndexes, Mixed, modelOf, storedSchema, type Connection, type Model } from '@pilot/storage';
import type { Collection } from 'mongodb';
import type { Clock } from '@pilot/platform';
import { guardedRead, insertAll, readByIds, replaceAll } from './folded-documents';
import { checkHeld, FolderLease, type FolderLeaseDocument, type FoldGuard } from './folder-lease';
import type { Fold } from './journal';
import { isBreakdownGrain } from './breakdown-layout';
import { parseField, subjectsOf } from './layout';
import { monthOf, monthsToRead, totalsIdOf, type DayRange } from './months';

/** Day counts: `<YYYY-MM-DD>` -> kind -> count. */
export type DayCounts = Record<string, Record<string, number>>;

/** A document of `totals`: one grain's counts of one UTC month. */
export interface MonthTotals {
  _id: string;
  grain: string;
  /** YYYY-MM */
  month: string;
  lastFold: number;
  /** The fencing number of the folder lease under which it was last written. */
  fence?: number;
  days: DayCounts;
  campaignOwnerAccountId?: string;
  publisherOwnerAccountId?: string;
}

/** The folder's document of `totals_folder` (the other is the lease's, folder-lease.ts). */
export interface FolderState {
  _id: 'folder';
  /** Every document's `lastFold` is at most this. */
  appliedThrough: number;
  /** The first month any document is of (YYYY-MM); null before the first fold. */
  firstMonth: string | null;
}

/** A grain's stored totals over the months read: their days, and per month the last fold applied. */
export interface StoredGrain {
  days: DayCounts;
  /** Month (YYYY-MM) -> `lastFold` of its document; a month without a document is absent (0). */
  lastFolds: Record<string, number>;
  campaignOwnerAccountId?: string;
  publisherOwnerAccountId?: string;
}

export interface ApplyOptions {
  /** The folder lease's fencing number and check (by default: the current number, for a caller that holds no lease: tests, tools). */
  guard?: FoldGuard;
  /**
   * The folder state as last read or written (updated in place): saves a read per call. The batch's
   * folds are at most `through` (default: the highest of `folds`).
   */
  state?: FolderState;
  through?: number;
}

export { FoldingInterruptedError } from './folder-lease';

const monthTotalsSchema = storedSchema<MonthTotals>(
  {
    _id: String,
    grain: String,
    month: String,
    lastFold: Number,
    fence: Number,
    days: Mixed,
    campaignOwnerAccountId: String,
    publisherOwnerAccountId: String,
  },
  [[{ grain: 1, month: 1 }]],
);
// The lease's document (folder-lease.ts) shares the collection: its fields are declared here too.
const folderStateSchema = storedSchema<FolderState & Partial<Omit<FolderLeaseDocument, '_id'>>>({ _id: String, appliedThrough: Number, firstMonth: String, holder: String, until: Date, fence: Number });

const FOLDER_STATE_ID = 'folder';
/** Documents written per lease check, and per command (one read, one bulk replace, one insert). */
const DOCUMENTS_PER_GROUP = 200;

/** One document's part of a batch: its counts in each fold it lacks. */
interface DocumentParts {
  grain: string;
  month: string;
  parts: Array<{ seq: number; days: DayCounts }>;
}

/** Splits the folds' counts into documents (grain and month), each with its parts fold by fold. */
function documentPartsOf(folds: Fold[]): Map<string, DocumentParts> {
  const documents = new Map<string, DocumentParts>();
  for (const { seq, counts } of [...folds].sort((a, b) => a.seq - b.seq)) {
    for (const [grain, fields] of counts) {
      if (isBreakdownGrain(grain)) continue; // the breakdowns' (breakdown-store.ts)
      for (const [field, count] of fields) {
        const parsed = parseField(field);
        if (!parsed || count <= 0) continue;
        const month = monthOf(parsed.day);
        const id = totalsIdOf(grain, month);
        let document = documents.get(id);
        if (!document) documents.set(id, (document = { grain, month, parts: [] }));
        let part = document.parts[document.parts.length - 1];
        if (part?.seq !== seq) document.parts.push((part = { seq, days: {} }));
        const day = (part.days[parsed.day] ??= {});
        day[parsed.kind] = (day[parsed.kind] ?? 0) + count;
      }
    }
  }
  return documents;
}

function addDays(into: DayCounts, days: DayCounts): void {
  for (const [date, counts] of Object.entries(days)) {
    const day = (into[date] ??= {});
    for (const [kind, count] of Object.entries(counts)) day[kind] = (day[kind] ?? 0) + count;
  }
}

export class TotalsStore {
  private readonly model: Model<MonthTotals>;
  private readonly stateModel: Model<FolderState>;
  private readonly totals: Collection<MonthTotals>;
  private readonly states: Collection<FolderState>;

  constructor(
    connection: Connection,
    private readonly timeoutMs: number,
  ) {
    const db = connection.db;
    if (!db) throw new Error('MongoDB is not connected');
    this.model = modelOf(connection, 'totals', monthTotalsSchema);
    this.stateModel = modelOf(connection, 'totals_folder', folderStateSchema);
    this.totals = db.collection<MonthTotals>(this.model.collection.collectionName);
    this.states = db.collection<FolderState>(this.stateModel.collection.collectionName);
  }

  async ensureIndexes(): Promise<void> {
    await createDeclaredIndexes(this.model, this.stateModel);
  }

  async readState(): Promise<FolderState> {
    return (await this.states.findOne({ _id: FOLDER_STATE_ID })) ?? { _id: FOLDER_STATE_ID, appliedThrough: 0, firstMonth: null };
  }

  /** The folder lease of this service's totals, kept beside the folder state. */
  lease(clock: Clock): FolderLease {
    return new FolderLease(this.states as unknown as Collection<FolderLeaseDocument>, clock);
  }

  /** For a caller that holds no lease (tests, tools): the lease's current fencing number, never checked again. */
  async currentGuard(): Promise<FoldGuard> {
    const lease = (await this.states.findOne({ _id: 'lease' as FolderState['_id'] })) as unknown as FolderLeaseDocument | null;
    return { fence: lease?.fence ?? 0, stillHeld: () => Promise.resolve(true) };
  }

  /** The first month counted (the folder state's), for a read that looks up months from there. */
  async firstMonth(): Promise<string | null> {
    return (await guardedRead('totals read', this.timeoutMs, () => this.readState())).firstMonth;
  }

  /** The stored totals of these grains over `range` at `now`: the folder state, then one lookup per grain and month. */
  async readRange(grains: string[], range: DayRange, now: Date): Promise<Map<string, StoredGrain>> {
    const { firstMonth } = await guardedRead('totals read', this.timeoutMs, () => this.readState());
    return this.read(grains, monthsToRead(range, firstMonth, now));
  }

  /** The stored totals of these grains in these months (YYYY-MM), by grain: one lookup by `_id` each. */
  async read(grains: string[], months: string[]): Promise<Map<string, StoredGrain>> {
    const ids = grains.flatMap((grain) => months.map((month) => totalsIdOf(grain, month)));
    const found = await guardedRead('totals read', this.timeoutMs, () => Promise.all(ids.map((_id) => this.totals.findOne({ _id }, { maxTimeMS: this.timeoutMs }))));
    const stored = new Map<string, StoredGrain>();
    for (const document of found) {
      if (!document) continue;
      let grain = stored.get(document.grain);
      if (!grain) stored.set(document.grain, (grain = { days: {}, lastFolds: {} }));
      addDays(grain.days, document.days);
      grain.lastFolds[document.month] = document.lastFold;
      grain.campaignOwnerAccountId ??= document.campaignOwnerAccountId;
      grain.publisherOwnerAccountId ??= document.publisherOwnerAccountId;
    }
    return stored;
  }

  /** Adds fold `seq` to every grain it counted, once (see applyFolds). */
  async apply(seq: number, counts: Fold['counts'], owners: Map<string, string>): Promise<void> {
    await this.applyFolds([{ seq, counts }], owners);
  }

  /**
   * Adds every fold of the batch to the documents of the grains and months it counted, once: each
   * document gets the folds numbered above its `lastFold` in one write, which sets `lastFold` to the
   * highest of them. The folder state covers the batch first (its fold numbers and its months). `owners`
   * maps `c:<id>` / `p:<id>` to accounts.
   */
  async applyFolds(folds: Fold[], owners: Map<string, string>, options: ApplyOptions = {}): Promise<void> {
    const documents = documentPartsOf(folds);
    if (documents.size === 0) return;
    const guard = options.guard ?? (await this.currentGuard());
    const state = options.state ?? (await this.readState());
    await this.coverBatch(state, Math.max(options.through ?? 0, ...folds.map((fold) => fold.seq)), [...documents.values()].map(({ month }) => month));
    const entries = [...documents];
    for (let start = 0; start < entries.length; start += DOCUMENTS_PER_GROUP) await this.writeGroup(entries.slice(start, start + DOCUMENTS_PER_GROUP), owners, guard);
  }

  /**
   * Makes the folder state cover a batch before any document of it is written: its fold numbers (up to
   * `through`) and its months. `state` is updated in place.
   */
  async coverBatch(state: FolderState, through: number, months: string[]): Promise<void> {
    const firstMonth = months.reduce<string | null>((first, month) => (first === null || month < first ? month : first), state.firstMonth);
    if (through > state.appliedThrough || firstMonth !== state.firstMonth) {
      const next: FolderState = { _id: FOLDER_STATE_ID, appliedThrough: Math.max(through, state.appliedThrough), firstMonth };
      await this.states.replaceOne({ _id: FOLDER_STATE_ID }, next, { upsert: true });
      Object.assign(state, next);
    }
  }

  /**
   * Reads the group's documents in one command, then, the lease checked, replaces those that exist in one
   * and inserts the others in another, both under the lease's fencing number.
   */
  private async writeGroup(group: Array<[string, DocumentParts]>, owners: Map<string, string>, guard: FoldGuard): Promise<void> {
    const stored = await readByIds(this.totals, group.map(([_id]) => _id));
    const replaced: MonthTotals[] = [];
    const inserted: MonthTotals[] = [];
    for (const [_id, parts] of group) {
      const next = this.withParts(_id, parts, stored.get(_id) ?? null, owners);
      if (next) (stored.has(_id) ? replaced : inserted).push(next);
    }
    await checkHeld(guard);
    await replaceAll(this.totals, replaced, guard.fence);
    // A document that appeared meanwhile (only one folder writes, so hardly ever) fails the insert and the
    // pass; the next pass reads it and adds only what it lacks.
    await insertAll(this.totals, inserted, guard.fence);
  }

  /** The document with the parts it lacks added, or null when it has them all. */
  private withParts(_id: string, { grain, month, parts }: DocumentParts, stored: MonthTotals | null, owners: Map<string, string>): MonthTotals | null {
    const lastFold = stored?.lastFold ?? 0;
    const missing = parts.filter((part) => part.seq > lastFold);
    if (missing.length === 0) return null;
    const days: DayCounts = {};
    addDays(days, stored?.days ?? {});
    for (const part of missing) addDays(days, part.days);
    const document: MonthTotals = { _id, grain, month, lastFold: Math.max(...missing.map((part) => part.seq)), days };
    const { campaignId, publisherId } = subjectsOf(grain);
    const campaignOwner = stored?.campaignOwnerAccountId ?? (campaignId === undefined ? undefined : owners.get(`c:${campaignId}`));
    const publisherOwner = stored?.publisherOwnerAccountId ?? (publisherId === undefined ? undefined : owners.get(`p:${publisherId}`));
    if (campaignOwner) document.campaignOwnerAccountId = campaignOwner;
    if (publisherOwner) document.publisherOwnerAccountId = publisherOwner;
    return document;
  }

}

