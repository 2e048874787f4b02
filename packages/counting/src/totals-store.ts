/**
 * The totals and the hourly figures in MongoDB (docs/counting.md), in the owning service's database. A
 * document holds one grain's counts of one UTC day, with the grain's key as real fields (grainFieldsOf):
 *
 *   counts_days   {_id, level, campaignId, publisherId, accountId, placementId, day: 'YYYY-MM-DD',
 *                 adRequests?, confirmedDeliveries?, clickedLinks?, unfilledAdRequests?, filtered_head?,
 *                 filtered_preview_agent?, impressions?, hours?: {<HH>: {<kind>: n}},
 *                 campaignOwnerAccountId?, publisherOwnerAccountId?, lastFold, fence}
 *   totals_folder {_id: 'folder', appliedThrough} (and the lease's document, folder-lease.ts)
 *
 * `hours` is unset HOURLY_RETENTION_DAYS after its day (hourlyRetentionRule); the day's counters stay.
 * Reads give the key fields then the day range (the key index); `_id` is the key's values joined, the
 * unique key on which a raced insert collides. A fold adds a day's counters and its hours with one `$inc`
 * per document, guarded by `lastFold` and the lease's `fence` (folded-documents.ts).
 */
import type { Clock } from '@pilot/platform';
import { createDeclaredIndexes, Mixed, modelOf, storedSchema, type Connection, type Model, type RetentionRule } from '@pilot/storage';
import type { Collection, Db, Filter } from 'mongodb';
import { guardedRead, incrementAll, type Increment } from './folded-documents';
import { FolderLease, type FolderLeaseDocument, type FoldGuard } from './folder-lease';
import type { Fold } from './journal';
import { isBreakdownGrain, scopeQueryOf, type BreakdownDimension, type StoredItems } from './breakdown-layout';
import { HOURLY_RETENTION_DAYS, parseHourField, type HourCounts } from './hourly-layout';
import { dayKeyOf, grainFieldsOf, LEVELS, parseField, type GrainFields } from './layout';
import { migrateEarlierDocuments } from './migrate-earlier-documents';
import { pairFiltersOf, type PairQuery } from './pair-documents';

/** Inclusive UTC dates, YYYY-MM-DD; absent means from the first day counted, or up to the last. */
export interface DayRange {
  from?: string;
  to?: string;
}

/** Day counts: `<YYYY-MM-DD>` -> kind -> count. */
export type DayCounts = Record<string, Record<string, number>>;

interface CountsDocument extends GrainFields {
  _id: string;
  day: string;
  lastFold: number;
  fence: number;
  campaignOwnerAccountId?: string;
  publisherOwnerAccountId?: string;
}

/** A document of `counts_days`: its counters are top-level fields named by kind, its hours under `hours`. */
export type DayDocument = CountsDocument & { hours?: HourCounts } & Record<string, unknown>;

/** The folder's document of `totals_folder` (the other is the lease's, folder-lease.ts). */
export interface FolderState {
  _id: 'folder';
  /** Every document's `lastFold` is at most this. */
  appliedThrough: number;
}

/** A grain's stored totals over the days read: their counts (and hours), and per day the last fold applied. */
export interface StoredGrain {
  days: DayCounts;
  /** `YYYY-MM-DDTHH` -> kind -> count, when read with the hours. */
  hours: HourCounts;
  /** Day (YYYY-MM-DD) -> `lastFold` of its document; a day without a document is absent (0). */
  lastFolds: Record<string, number>;
  campaignOwnerAccountId?: string;
  publisherOwnerAccountId?: string;
}

export interface ApplyOptions {
  /** The folder lease's fencing number and check (by default: the current number, for a caller that holds no lease: tests, tools). */
  guard?: FoldGuard;
  /** The folder state as last read or written (updated in place); the batch's folds are at most `through`. */
  state?: FolderState;
  through?: number;
}

export { FoldingInterruptedError } from './folder-lease';

const KEY_FIELDS = { level: String, campaignId: Number, publisherId: Number, accountId: String, placementId: String, day: String };
const KEY_INDEX = { level: 1, campaignId: 1, publisherId: 1, accountId: 1, placementId: 1, day: 1 } as const;
const GUARD_FIELDS = { _id: String, lastFold: Number, fence: Number, campaignOwnerAccountId: String, publisherOwnerAccountId: String };
const COUNTERS = { adRequests: Number, confirmedDeliveries: Number, clickedLinks: Number, unfilledAdRequests: Number, filtered_head: Number, filtered_preview_agent: Number, impressions: Number };
// The breakdowns' reads (breakdown-layout.ts, scopeQueryOf): a scope's items by an owner or a platform.
const SCOPE_INDEXES = ['accountId', 'publisherId', 'campaignOwnerAccountId', 'publisherOwnerAccountId'].map((field): [Record<string, 1>] => [{ level: 1, [field]: 1, day: 1 }]);
// The report's read of the whole network (pair-documents.ts) and the hours' retention: one level's documents over a day range.
const LEVEL_DAY_INDEX: [Record<string, 1>] = [{ level: 1, day: 1 }];
const daySchema = storedSchema<DayDocument>({ ...GUARD_FIELDS, ...KEY_FIELDS, ...COUNTERS, hours: Mixed }, [[KEY_INDEX], ...SCOPE_INDEXES, LEVEL_DAY_INDEX]);
// The lease's document (folder-lease.ts) shares the collection: its fields are declared here too.
const folderStateSchema = storedSchema<FolderState & Partial<Omit<FolderLeaseDocument, '_id'>>>({ _id: String, appliedThrough: Number, holder: String, until: Date, fence: Number });

const FOLDER_STATE_ID = 'folder';
const DAY_MS = 86_400_000;
/** Documents written per lease check and per bulk write: the most an `_id $in` the local store answers from its index holds. */
const DOCUMENTS_PER_GROUP = 1_000;
/** Fields a totals read leaves out: the guard, never summed. */
const NOT_COUNTERS = new Set(['_id', 'level', 'campaignId', 'publisherId', 'accountId', 'placementId', 'day', 'lastFold', 'fence', 'campaignOwnerAccountId', 'publisherOwnerAccountId']);
/** What every read leaves out: the key's joined values, the level and the fence (the reads name the key's fields, and never use the fence). */
const WITH_HOURS = { _id: 0, level: 0, fence: 0 };
/** What a read of the days leaves out: that and the hours. */
const WITHOUT_HOURS = { ...WITH_HOURS, hours: 0 };

/** The folds' counts (in number order) as one increment per document of a grain and day (an hour field under `hours.<HH>`). */
function incrementsOf(folds: Fold[], owners: Map<string, string>): Increment[] {
  const documents = new Map<string, Increment>();
  for (const { seq, counts } of [...folds].sort((a, b) => a.seq - b.seq)) {
    for (const [grain, fields] of counts) {
      if (isBreakdownGrain(grain)) continue; // Redis' alone: the day documents answer the breakdowns
      for (const [field, count] of fields) {
        const hour = parseHourField(field);
        const parsed = hour ? { day: hour.day, kind: `hours.${hour.hour}.${hour.kind}` } : parseField(field);
        if (!parsed || count <= 0) continue;
        const id = `${grain}|${parsed.day}`;
        let document = documents.get(id);
        if (!document) documents.set(id, (document = newIncrement(grainFieldsOf(grain), parsed.day, owners)));
        let part = document.parts[document.parts.length - 1];
        if (part?.seq !== seq) document.parts.push((part = { seq, inc: {} }));
        part.inc[parsed.kind] = (part.inc[parsed.kind] ?? 0) + count;
      }
    }
  }
  return [...documents.values()];
}

/** A document's increment with no parts yet: its `_id`, and the key fields and owners a new one is inserted with (a field the grain does not name is absent, which a query's null matches). */
function newIncrement(fields: GrainFields, day: string, owners: Map<string, string>): Increment {
  const onInsert: Record<string, unknown> = { ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null)), day };
  const campaignOwner = fields.campaignId === null ? undefined : owners.get(`c:${fields.campaignId}`);
  const publisherOwner = fields.publisherId === null ? undefined : owners.get(`p:${fields.publisherId}`);
  if (campaignOwner) onInsert.campaignOwnerAccountId = campaignOwner;
  if (publisherOwner) onInsert.publisherOwnerAccountId = publisherOwner;
  return { _id: dayKeyOf(fields, day), onInsert, parts: [] };
}

export class TotalsStore {
  private readonly dayModel: Model<DayDocument>;
  private readonly stateModel: Model<FolderState>;
  private readonly days: Collection<DayDocument>;
  private readonly states: Collection<FolderState>;
  private readonly db: Db;
  private migrated = false;

  constructor(
    connection: Connection,
    private readonly timeoutMs: number,
  ) {
    const db = connection.db;
    if (!db) throw new Error('MongoDB is not connected');
    this.db = db;
    this.dayModel = modelOf(connection, 'counts_days', daySchema);
    this.stateModel = modelOf(connection, 'totals_folder', folderStateSchema);
    this.days = db.collection<DayDocument>(this.dayModel.collection.collectionName);
    this.states = db.collection<FolderState>(this.stateModel.collection.collectionName);
  }

  async ensureIndexes(): Promise<void> {
    await createDeclaredIndexes(this.dayModel, this.stateModel);
  }

  /**
   * The retention of the hourly figures, for the service's RetentionSweeper: `$unset` of `hours` in the
   * documents of the days that start before the sweep's cutoff, level by level (the `{level, day}` index:
   * one index fewer for every fold write to keep). After a first sweep, a sweep looks only at the days since
   * the cutoff of the last one that succeeded.
   */
  hourlyRetentionRule(): RetentionRule {
    let sweptBefore: string | undefined;
    return {
      name: 'counts_days.hours',
      dateFields: ['day'],
      keepMs: HOURLY_RETENTION_DAYS * DAY_MS,
      deleteMany: async (filter) => {
        // The sweeper's cutoff is an instant; a day goes when it starts before it.
        const cutoff = (filter.day as { $lt: Date }).$lt.getTime();
        const before = new Date(cutoff - 1 + DAY_MS).toISOString().slice(0, 10);
        const day = sweptBefore === undefined ? { $lt: before } : { $gte: sweptBefore, $lt: before };
        let unset = 0;
        for (const level of LEVELS) unset += (await this.days.updateMany({ level, day, hours: { $exists: true } }, { $unset: { hours: '' } })).modifiedCount;
        sweptBefore = before;
        return unset;
      },
    };
  }

  /** Moves an earlier version's documents into day documents, once (migrate-earlier-documents.ts): the folder calls it under its lease. */
  async migrateOnce(fence: number): Promise<void> {
    if (this.migrated) return;
    await migrateEarlierDocuments(this.db, fence);
    this.migrated = true;
  }

  async readState(): Promise<FolderState> {
    return (await this.states.findOne({ _id: FOLDER_STATE_ID })) ?? { _id: FOLDER_STATE_ID, appliedThrough: 0 };
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

  /** The stored totals of these grains over `range` (`withHours`: their hours too), by grain: one indexed query per grain. */
  async readRange(grains: string[], range: DayRange, withHours = false): Promise<Map<string, StoredGrain>> {
    const found = await this.find('totals read', grains.map((grain) => ({ ...grainFieldsOf(grain), ...dayRangeOf(range) })), withHours ? WITH_HOURS : WITHOUT_HOURS);
    const stored = new Map<string, StoredGrain>();
    grains.forEach((grain, index) => {
      if (found[index]!.length === 0) return;
      const entry: StoredGrain = { days: {}, hours: {}, lastFolds: {} };
      for (const document of found[index]!) {
        entry.days[document.day] = countersOf(document);
        for (const [hour, counts] of Object.entries(document.hours ?? {})) entry.hours[`${document.day}T${hour}`] = counts;
        entry.lastFolds[document.day] = document.lastFold;
        entry.campaignOwnerAccountId ??= document.campaignOwnerAccountId;
        entry.publisherOwnerAccountId ??= document.publisherOwnerAccountId;
      }
      stored.set(grain, entry);
    });
    return stored;
  }

  /**
   * The day documents of a breakdown's scope within `range` (one indexed query), per item and day, and the
   * owners they name of the campaign or platform the scope is about.
   */
  async readScope(dimension: BreakdownDimension, scope: string, range: DayRange): Promise<{ items: StoredItems; campaignOwnerAccountId?: string; publisherOwnerAccountId?: string }> {
    const { filter, itemField } = scopeQueryOf(dimension, scope);
    const [documents] = await this.find('breakdown read', [{ ...filter, ...dayRangeOf(range) }], WITHOUT_HOURS);
    const items: StoredItems = new Map();
    const owners: { campaignOwnerAccountId?: string; publisherOwnerAccountId?: string } = {};
    for (const document of documents!) {
      const item = document[itemField] as number;
      let days = items.get(item);
      if (!days) items.set(item, (days = new Map()));
      days.set(document.day, { counts: countersOf(document), lastFold: document.lastFold });
      owners.campaignOwnerAccountId ??= document.campaignOwnerAccountId;
      owners.publisherOwnerAccountId ??= document.publisherOwnerAccountId;
    }
    return { items, ...owners };
  }

  /** The report's documents (pair-documents.ts): one indexed query per filter, each document with its counters. */
  async readPairs(query: PairQuery): Promise<StoredPair[]> {
    const found = await this.find('report read', pairFiltersOf(query), WITHOUT_HOURS);
    return found.flat().map((document) => ({ ...pairOf(document), counts: countersOf(document) }));
  }

  /** The report's documents from `from` to `to`, as readPairs, each with its hours. */
  async readPairHours(query: PairQuery & { from: string; to: string }): Promise<StoredPairHours[]> {
    const found = await this.find('report read', pairFiltersOf(query), WITH_HOURS);
    return found.flat().map((document) => ({ ...pairOf(document), hours: document.hours ?? {} }));
  }

  /** The day documents of each filter (one query each, at once) with `projection`, within the read's deadline. */
  private find(what: string, filters: Array<Record<string, unknown>>, projection: Record<string, number>): Promise<DayDocument[][]> {
    return guardedRead(what, this.timeoutMs, () => Promise.all(filters.map((filter) => this.days.find(filter as Filter<DayDocument>, { projection, maxTimeMS: this.timeoutMs }).toArray())));
  }

  /** Adds fold `seq` to every grain it counted, once (see applyFolds). */
  async apply(seq: number, counts: Fold['counts'], owners: Map<string, string>): Promise<void> {
    await this.applyFolds([{ seq, counts }], owners);
  }

  /**
   * Adds every fold of the batch to the day documents (their counters and hours) of the grains it counted, once each: a
   * document takes the folds above its `lastFold` with `$inc`. The folder state covers the batch's numbers
   * first. `owners` maps `c:<id>` / `p:<id>` to accounts.
   */
  async applyFolds(folds: Fold[], owners: Map<string, string>, options: ApplyOptions = {}): Promise<void> {
    const increments = incrementsOf(folds, owners);
    if (increments.length === 0) return;
    const guard = options.guard ?? (await this.currentGuard());
    const state = options.state ?? (await this.readState());
    await this.coverBatch(state, Math.max(options.through ?? 0, ...folds.map((fold) => fold.seq)));
    for (let start = 0; start < increments.length; start += DOCUMENTS_PER_GROUP) await incrementAll(this.days, increments.slice(start, start + DOCUMENTS_PER_GROUP), guard);
  }

  /** Makes the folder state cover a batch's fold numbers (up to `through`) before any document of it is written. */
  async coverBatch(state: FolderState, through: number): Promise<void> {
    if (through <= state.appliedThrough) return;
    await this.states.replaceOne({ _id: FOLDER_STATE_ID }, { appliedThrough: through }, { upsert: true });
    state.appliedThrough = through;
  }
}

/** A stored pair document's key and guard. */
export interface StoredPairKey {
  campaignId: number;
  publisherId: number;
  day: string;
  lastFold: number;
  campaignOwnerAccountId?: string;
  publisherOwnerAccountId?: string;
}

export interface StoredPair extends StoredPairKey {
  counts: Record<string, number>;
}

export interface StoredPairHours extends StoredPairKey {
  /** HH -> kind -> count. */
  hours: HourCounts;
}

function pairOf(document: CountsDocument): StoredPairKey {
  const { campaignId, publisherId, day, lastFold, campaignOwnerAccountId, publisherOwnerAccountId } = document;
  return { campaignId: campaignId!, publisherId: publisherId!, day, lastFold, campaignOwnerAccountId, publisherOwnerAccountId };
}

/** A day document's counters, by kind. */
function countersOf(document: DayDocument): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const [kind, value] of Object.entries(document)) if (!NOT_COUNTERS.has(kind) && typeof value === 'number') counts[kind] = value;
  return counts;
}

/** The condition on `day` of a range (none for all time). */
function dayRangeOf(range: DayRange): { day?: Record<string, string> } {
  const day: Record<string, string> = {};
  if (range.from !== undefined) day.$gte = range.from;
  if (range.to !== undefined) day.$lte = range.to;
  return Object.keys(day).length > 0 ? { day } : {};
}
