/** The totals in MongoDB, `counts_days`: one document per grain and UTC day (README.md, docs/storage.md "Totals"). */
import { asInfrastructureFault, type Clock } from '@pilot/platform';
import { createDeclaredIndexes, Mixed, modelOf, storedSchema, type Connection, type Model, type RetentionRule } from '@pilot/storage';
import type { Collection, Filter } from 'mongodb';
import { scopeQueryOf, type BreakdownDimension } from './breakdown-layout';
import { writeFolds } from './folded-documents';
import { FolderLease, type FolderLeaseDocument, type FoldGuard } from './folder-lease';
import type { Fold } from './journal';
import { DAY_MS, dayOf, dayPartsOf, grainFieldsOf, HOURLY_RETENTION_DAYS, LEVELS, type DayRange, type GrainFields, type HourCounts, type Owners, type StoredDay, type StoredGrain } from './layout';

export type DayDocument = GrainFields & Owners & { _id: string; day: string; lastFold: number; fence: number; hours?: HourCounts } & Record<string, unknown>;

/** The report's documents: the campaign-on-platform grain's, over the records `visibleTo` sees (all when undefined). */
export interface PairQuery extends DayRange {
  campaignId?: number;
  publisherId?: number;
  visibleTo?: string;
}

/** A page of the report's documents in day order: the ids after the day in `order` (`_id` last makes it total), from after `after`, at most `limit` a filter. */
export interface DayPage {
  order: readonly ['campaignId', 'publisherId'] | readonly ['publisherId', 'campaignId'];
  after: { day: string; campaignId: number | null; publisherId: number | null } | null;
  limit: number;
}

/** The counters a day document holds (top-level fields, each added to with `$inc`). */
const COUNTERS = ['adRequests', 'confirmedDeliveries', 'clickedLinks', 'unfilledAdRequests', 'filtered_head', 'filtered_preview_agent', 'impressions'];
const KEY_INDEX = { level: 1, campaignId: 1, publisherId: 1, accountId: 1, placementId: 1, day: 1 } as const;
// A breakdown scope's items by an owner or a platform (scopeQueryOf); an owner's report pages in day order (readPage).
const SCOPE_INDEXES = [['accountId', 'day'], ['publisherId', 'day'], ['campaignOwnerAccountId', 'day', 'campaignId', 'publisherId', '_id'], ['publisherOwnerAccountId', 'day', 'publisherId', 'campaignId', '_id']].map((fields): [Record<string, 1>] => [Object.fromEntries(['level', ...fields].map((field) => [field, 1]))]);
// The network's report in day order and the hours' retention: one level over a day range.
const LEVEL_DAY_INDEX: [Record<string, 1>] = [{ level: 1, day: 1, campaignId: 1, publisherId: 1, _id: 1 }];
/**
 * The first id of the day order an index above holds a filter's documents in: a publisher owner's platforms, an advertiser's
 * campaigns, the network's level campaign first; null for another filter (an account's split documents), which no index holds so.
 */
function indexedFirstIdOf(filter: Record<string, unknown>): 'campaignId' | 'publisherId' | null {
  if (typeof filter.publisherOwnerAccountId === 'string') return 'publisherId';
  if (typeof filter.campaignOwnerAccountId === 'string') return 'campaignId';
  return Object.keys(filter).every((field) => field === 'level') ? 'campaignId' : null;
}
/** Indexes the ones above replace (each a prefix of one of them): dropped at start, by whichever replica comes first. */
const REPLACED_INDEXES = ['level_1_campaignOwnerAccountId_1_day_1', 'level_1_publisherOwnerAccountId_1_day_1', 'level_1_day_1'];
const INDEX_NOT_FOUND = 27;
const daySchema = storedSchema<DayDocument>(
  {
    ...{ _id: String, level: String, campaignId: Number, publisherId: Number, accountId: String, placementId: String, day: String, lastFold: Number, fence: Number },
    ...{ campaignOwnerAccountId: String, publisherOwnerAccountId: String, hours: Mixed },
    ...Object.fromEntries(COUNTERS.map((kind) => [kind, Number])),
  },
  [[KEY_INDEX], ...SCOPE_INDEXES, LEVEL_DAY_INDEX],
);
const leaseSchema = storedSchema<FolderLeaseDocument>({ _id: String, holder: String, until: Date, fence: Number });

const WITH_HOURS = { _id: 0, level: 0, fence: 0 };
const WITHOUT_HOURS = { ...WITH_HOURS, hours: 0 };
const UNSET_KEY_FIELDS = { campaignId: null, publisherId: null, accountId: null, placementId: null };

export class TotalsStore {
  private readonly dayModel: Model<DayDocument>;
  private readonly leaseModel: Model<FolderLeaseDocument>;
  private readonly days: Collection<DayDocument>;
  private readonly leases: Collection<FolderLeaseDocument>;

  constructor(
    connection: Connection,
    private readonly timeoutMs: number,
  ) {
    if (!connection.db) throw new Error('MongoDB is not connected');
    this.dayModel = modelOf(connection, 'counts_days', daySchema);
    this.leaseModel = modelOf(connection, 'totals_folder', leaseSchema);
    this.days = connection.db.collection(this.dayModel.collection.collectionName);
    this.leases = connection.db.collection(this.leaseModel.collection.collectionName);
  }

  async ensureIndexes(): Promise<void> {
    await createDeclaredIndexes(this.dayModel, this.leaseModel);
    const existing = new Set((await this.days.indexes()).map((index) => index.name));
    const dropped = (error: { code?: number }) => (error.code === INDEX_NOT_FOUND ? undefined : Promise.reject(error));
    for (const name of REPLACED_INDEXES) if (existing.has(name)) await this.days.dropIndex(name).catch(dropped);
  }

  /** The hours' retention: `$unset` of `hours` on the days before the cutoff, a level at a time (the `{level, day, …}` index), since the last cutoff. */
  hourlyRetentionRule(): RetentionRule {
    let sweptBefore: string | undefined;
    return {
      name: 'counts_days.hours',
      dateFields: ['day'],
      keepMs: HOURLY_RETENTION_DAYS * DAY_MS,
      deleteMany: async (filter) => {
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

  lease(clock: Clock): FolderLease {
    return new FolderLease(this.leases, clock);
  }

  /** For a caller that holds no lease (tests, tools): the lease's current number, never checked again. */
  async currentGuard(): Promise<FoldGuard> {
    const lease = await this.leases.findOne({ _id: 'lease' });
    return { fence: lease?.fence ?? 0, stillHeld: () => Promise.resolve(true) };
  }

  /** The stored totals of these grains over `range` (`withHours`: their hours too): one indexed query per grain. */
  async readRange(grains: string[], range: DayRange, withHours = false): Promise<Map<string, StoredGrain>> {
    const found = await this.find('totals read', grains.map((grain) => ({ ...grainFieldsOf(grain), ...dayRangeOf(range) })), withHours ? WITH_HOURS : WITHOUT_HOURS);
    const stored = new Map<string, StoredGrain>();
    grains.forEach((grain, index) => {
      if (found[index]!.length === 0) return;
      const entry: StoredGrain = { days: {}, hours: {}, lastFolds: {} };
      for (const { day, counts, hours, lastFold, campaignOwnerAccountId, publisherOwnerAccountId } of found[index]!.map(storedDayOf)) {
        [entry.days[day], entry.lastFolds[day]] = [counts, lastFold];
        for (const [hour, hourCounts] of Object.entries(hours ?? {})) entry.hours[`${day}T${hour}`] = hourCounts;
        entry.campaignOwnerAccountId ??= campaignOwnerAccountId;
        entry.publisherOwnerAccountId ??= publisherOwnerAccountId;
      }
      stored.set(grain, entry);
    });
    return stored;
  }

  /**
   * A breakdown scope's documents within `range`. Of `items` only (the key's other fields null: one index serves key and days), their days
   * before `recentFrom` (every day, when none) are summed by the store: an entry an item, its `day` empty, no unfolded count being of them.
   */
  async readScope(dimension: BreakdownDimension, scope: string, range: DayRange, items?: readonly number[], recentFrom?: string): Promise<StoredDay[]> {
    if (!items) return (await this.find('breakdown read', inRangeParts(scopeQueryOf(dimension, scope), range), WITHOUT_HOURS)).flat().map(storedDayOf);
    const narrowed = { ...UNSET_KEY_FIELDS, ...scopeQueryOf(dimension, scope), [`${dimension}Id`]: { $in: items } };
    const dayBeforeRecent = recentFrom && dayOf(new Date(Date.parse(recentFrom) - DAY_MS));
    const summed = dayBeforeRecent ? { from: range.from, to: range.to !== undefined && range.to < dayBeforeRecent ? range.to : dayBeforeRecent } : range;
    const recent = recentFrom ? { from: range.from !== undefined && range.from > recentFrom ? range.from : recentFrom, to: range.to } : null;
    const group = { _id: { item: `$${dimension}Id`, campaignOwnerAccountId: '$campaignOwnerAccountId', publisherOwnerAccountId: '$publisherOwnerAccountId' }, ...Object.fromEntries(COUNTERS.map((kind) => [kind, { $sum: `$${kind}` }])) };
    const sum = () => this.days.aggregate<ItemSum>([{ $match: { ...narrowed, ...dayRangeOf(summed) } }, { $group: group }], { maxTimeMS: this.timeoutMs }).toArray();
    const [sums, documents] = await Promise.all([
      hasDays(summed) ? asInfrastructureFault(sum, this.timeoutMs, 'mongodb', 'breakdown read failed') : [],
      this.find('breakdown read', recent && hasDays(recent) ? [{ ...narrowed, ...dayRangeOf(recent) }] : [], WITHOUT_HOURS),
    ]);
    return [...sums.map(({ _id: { item, ...owners }, ...counts }) => storedDayOf({ ...owners, ...counts, [`${dimension}Id`]: item, day: '', lastFold: 0 } as DayDocument)), ...documents.flat().map(storedDayOf)];
  }

  /** The report's documents (`withHours`: their hours too). */
  async readPairs(query: PairQuery, withHours = false): Promise<StoredDay[]> {
    return (await this.find('report read', pairFiltersOf(query).flatMap((filter) => inRangeParts(filter, query)), withHours ? WITH_HOURS : WITHOUT_HOURS)).flat().map(storedDayOf);
  }

  /** The report's campaign-on-platform documents after the page's cursor, in its order (readPage). */
  readPairPage(query: PairQuery, page: DayPage): Promise<StoredDay[]> {
    return this.readPage(pairFiltersOf(query), query, page);
  }

  /** A breakdown's documents of these scopes (scopeQueryOf) after the page's cursor, in its order (readPage); the id of the other dimension is null in each. */
  readScopePage(dimension: BreakdownDimension, scopes: readonly string[], range: DayRange, page: DayPage): Promise<StoredDay[]> {
    return this.readPage(scopes.map((scope) => scopeQueryOf(dimension, scope)), range, page);
  }

  /**
   * The documents of the filters after the page's cursor, in its order: the first `limit` of each filter an index serves the order of
   * (indexedFirstIdOf), every one of another (an account's other side, its own few: sorted, the store would walk another filter's
   * index in the order instead of this one's range); the caller merges and cuts them.
   */
  private async readPage(filters: Array<Record<string, unknown>>, range: DayRange, page: DayPage): Promise<StoredDay[]> {
    const sort = Object.fromEntries(['day', ...page.order, '_id'].map((field) => [field, 1 as const]));
    const reads = filters.map((filter) => {
      const after = { ...filter, ...dayRangeOf(range), ...(page.after ? afterKeyOf(page) : {}) };
      return this.find('report read', [after], WITHOUT_HOURS, indexedFirstIdOf(filter) === page.order[0] ? { sort, limit: page.limit } : undefined);
    });
    return (await Promise.all(reads)).flat(2).map(storedDayOf);
  }

  /** The documents of each filter (one query each, at once) within the read's deadline; any failure is a 503. */
  private find(what: string, filters: Array<Record<string, unknown>>, projection: Record<string, number>, sorted?: { sort: Record<string, 1>; limit: number }): Promise<DayDocument[][]> {
    const read = (filter: Record<string, unknown>) => this.days.find(filter as Filter<DayDocument>, { projection, maxTimeMS: this.timeoutMs, ...sorted }).toArray();
    return asInfrastructureFault(() => Promise.all(filters.map(read)), this.timeoutMs, 'mongodb', `${what} failed`);
  }

  /** Adds every fold of the batch to the day documents, once each: a document takes the folds above its `lastFold` (folded-documents.ts). */
  async applyFolds(folds: Fold[], owners: Map<string, string>, guard?: FoldGuard): Promise<void> {
    await writeFolds(this.days, folds, owners, guard ?? (await this.currentGuard()));
  }
}

/** An account's pairs are its campaigns', then its platforms' showing others' campaigns (an own pair counts once). */
function pairFiltersOf({ campaignId, publisherId, visibleTo: viewer }: PairQuery): Array<Record<string, unknown>> {
  const base = { level: 'campaignPublisher', ...(campaignId === undefined ? {} : { campaignId }), ...(publisherId === undefined ? {} : { publisherId }) };
  return viewer === undefined ? [base] : [{ ...base, campaignOwnerAccountId: viewer }, { ...base, publisherOwnerAccountId: viewer, campaignOwnerAccountId: { $ne: viewer } }];
}

/** The documents after a page's last one in its order: a later day, or the same day and later ids (an id that is null, a scope's other dimension, is null in every one). */
function afterKeyOf({ order: [first, second], after }: DayPage): Record<string, unknown> {
  const { day, [first]: firstId, [second]: secondId } = after!;
  const later = (field: string, id: number | null) => (id === null ? [] : [{ [field]: { $gt: id } }]);
  return { $or: [{ day: { $gt: day } }, ...later(first, firstId).map((key) => ({ day, ...key })), ...later(second, secondId).map((key) => ({ day, [first]: firstId, ...key }))] };
}

function storedDayOf(document: DayDocument): StoredDay {
  const { campaignId = null, publisherId = null, day, lastFold, hours, campaignOwnerAccountId, publisherOwnerAccountId } = document;
  return { campaignId, publisherId, day, lastFold, counts: countersOf(document), hours, campaignOwnerAccountId, publisherOwnerAccountId };
}

function countersOf(document: DayDocument): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const kind of COUNTERS) {
    const value = document[kind];
    if (typeof value === 'number' && value !== 0) counts[kind] = value;
  }
  return counts;
}

/** `filter` over the range; a level's every document (the network's records) a query per part of its days (dayPartsOf), read side by side (the store scans each part's index range on its own). */
function inRangeParts(filter: Record<string, unknown>, range: DayRange): Array<Record<string, unknown>> {
  const parts = Object.keys(filter).length > 1 ? [range] : dayPartsOf(range);
  return parts.map((part) => ({ ...filter, ...dayRangeOf(part) }));
}

type ItemSum = { _id: Owners & { item: number } } & Record<string, number>;

/** Whether a range holds a day at all. */
const hasDays = ({ from, to }: DayRange) => from === undefined || to === undefined || from <= to;

function dayRangeOf({ from, to }: DayRange): { day?: Record<string, string> } {
  if (from === undefined && to === undefined) return {};
  return { day: { ...(from === undefined ? {} : { $gte: from }), ...(to === undefined ? {} : { $lte: to }) } };
}
