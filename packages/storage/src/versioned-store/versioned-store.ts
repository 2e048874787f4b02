/**
 * Records whose every change is one version-guarded write of one document (docs/storage.md).
 *
 * Two collections per kind of record: the records under their own ids (`campaigns`; a number for numbered
 * records, a string for named ones) and the audit (`campaign_history`). A change from version v is ONE
 * update of the record's document, `{_id, version: v}` → the new state, version v+1, and a pending item
 * (pending-changes.ts) carrying the audit facts, the state and the events; a create is one insert of the
 * document with its first item. No match means someone else changed it first: ConcurrentChangeError.
 *
 * The writer then finishes the change: it publishes the events with broker confirms and answers; after the
 * answer it writes the history entry `<id>:<version>` (an insert; one written before is left as it is) and
 * removes the pending items by one update guarded by its version. The answer path is two store commands,
 * the read and the guarded write. The update returns the pending items as they are after it, so a writer
 * finishes every unfinished change of the record in version order, and a newer change's writer (guarded by
 * a version that moved on) leaves its removal to that writer. An audit read (`historyPage`) waits for this
 * process's history inserts still running, so a caller reads its own changes in the audit at once; another
 * replica's show within that insert's time.
 * Whatever interrupts a writer leaves the items for the outbox relay, which finishes them the same way: at
 * least once, and consumers drop the versions they have.
 *
 * The raw driver is used, not mongoose models: every transition goes through these writes and lookups, and
 * a model measured 0.3 to 0.6 ms more CPU on each.
 */
import type { KnownEvent } from '@pilot/contracts';
import { sameInstantAfter } from '@pilot/contracts';
import { ALL_IDS, isDuplicateKeyError, newerThan, olderThan, wholeCollectionScan } from '../mongo';
import { OUTBOX_FIELDS, PENDING_INDEX, WITHOUT_OUTBOX, type ChangeFacts, type ClaimedRecord, type OutboxQueue, type PendingChange, type RecordId, type RelayLease } from './pending-changes';
import type { Collection, Db, Document, Filter, FindOptions, IndexSpecification, UpdateFilter } from 'mongodb';

export class ConcurrentChangeError extends Error {
  constructor(entity: string, id: RecordId) {
    super(`${entity} ${id} was changed concurrently`);
    this.name = 'ConcurrentChangeError';
  }
}

export interface HistoryEntry<S> extends ChangeFacts {
  _id: string;
  entity: string;
  entityId: RecordId;
  version: number;
  /** Account that owns the record, so an owner can read its own audit entries. */
  ownerAccountId: string;
  state: S;
  outbox: KnownEvent[];
}

export type Current<S> = S & { _id: RecordId; version: number; createdAt: Date; updatedAt: Date };

/** A change as written: the new current state, and whether its events are on the bus. */
export interface Written<S> {
  changed: Current<S>;
  /** True when the change had no events or they were published; false when they wait for the relay. */
  published: boolean;
}

/** How a query of current records orders, cuts and shapes its answer. */
export interface FindCurrentOptions {
  sort?: Record<string, 1 | -1>;
  limit?: number;
  projection?: Record<string, 0 | 1>;
}

/** Where a page of current records starts: after the record created at `createdAt` with id `id`. */
export type CurrentPosition = readonly [createdAt: Date, id: number];

/** Where a page of history entries starts: after the audit entry at `at` with key `key` (`@pilot/contracts`). */
export type HistoryPosition = readonly [at: Date, key: string];

/** The order of the lists: newest first, ties by id. */
const NEWEST_FIRST = { createdAt: -1, _id: -1 } as const;
/** The lists' other order: oldest first, ties by id (the same indexes read backwards). */
const OLDEST_FIRST = { createdAt: 1, _id: 1 } as const;
/** The order of the audit: newest first, ties by entry id. */
const AUDIT_ORDER = { at: -1, _id: -1 } as const;

/**
 * The history entries of `entity` after `position` in the audit's order (docs/storage.md): a filter for a
 * collection of entries whose `_id`s are strings, read on an index ending in `at: -1, _id: -1`.
 */
export function entriesAfter(entity: string, position: HistoryPosition): Document {
  const [at, key] = position;
  const bound = sameInstantAfter(entity, key);
  return olderThan('at', at, bound === 'all' ? ALL_IDS : bound === 'none' ? null : bound.idBelow);
}

export interface VersionedStoreOptions {
  /**
   * Publishes a change's events with broker confirms, right after its guarded write and beside its history
   * insert. Without it (or when it fails) the events wait for the outbox relay.
   */
  publish?: (events: KnownEvent[]) => Promise<void>;
  /** The most records whose published versions are remembered while their removals are unfinished (10,000). */
  rememberedRecords?: number;
}

/** A record's document: its state, version and times, and its outbox fields while a change is unfinished. */
type StoredRecord<S> = Current<S> & { pending?: PendingChange<S>[]; pendingSince?: Date; relayLeaseUntil?: Date; relayLeaseHolder?: string };

/** An event parked by the relay because it fails its contract (`parked_events`). */
export interface ParkedEvent {
  _id: string;
  collection: string;
  recordId: RecordId;
  version: number;
  event: unknown;
  problem: string;
  at: Date;
}

/** The fields of a record's document the store itself keeps. */
const META_FIELDS = new Set(['_id', 'version', 'createdAt', 'updatedAt', ...Object.keys(OUTBOX_FIELDS)]);

export class VersionedStore<S extends { ownerAccountId: string }> {
  /** The history, for the owning repository's own queries (audit). */
  readonly history: Collection<HistoryEntry<S>>;
  /** The records, for the owning repository's own queries (lists). */
  readonly current: Collection<Current<S>>;
  private readonly records: Collection<StoredRecord<S>>;
  private readonly parked: Collection<ParkedEvent>;
  private readonly queue: OutboxQueue;
  /** The history inserts and removals of finished changes still running after their answers. */
  private readonly removals = new Set<Promise<void>>();
  /** The history inserts among them, which an audit read waits for. */
  private readonly historyWrites = new Set<Promise<void>>();
  /** Per record with a removal still running, the highest version whose events this process published. */
  private readonly publishedThrough = new Map<string, number>();

  constructor(
    db: Db,
    readonly entity: string,
    currentCollection: string,
    historyCollection: string,
    private readonly options: VersionedStoreOptions = {},
  ) {
    this.history = db.collection<HistoryEntry<S>>(historyCollection);
    this.current = db.collection<Current<S>>(currentCollection);
    this.records = db.collection<StoredRecord<S>>(currentCollection);
    this.parked = db.collection<ParkedEvent>('parked_events');
    this.queue = {
      entries: this.records as unknown as Collection<Document>,
      leftovers: (cutoff, limit, skip) => this.leftovers(cutoff, limit, skip),
      claim: (id, cutoff, lease) => this.claim(id, cutoff, lease),
      writeHistory: (record) => this.writeHistory(record._id, record.pending as PendingChange<S>[]),
      park: (record, change, event, problem, at) => this.park(record, change, event, problem, at),
      release: (record) => this.release(record),
      letGo: (record) => this.letGo(record),
    };
  }

  /**
   * The history's indexes (the audit's order by record, by owner, by action, by owner and action, and over
   * all; a period is a range on `at`) and the records' pending index.
   */
  async ensureIndexes(): Promise<void> {
    await this.history.createIndex({ entityId: 1, ...AUDIT_ORDER });
    await this.history.createIndex({ ownerAccountId: 1, ...AUDIT_ORDER });
    await this.history.createIndex({ action: 1, ...AUDIT_ORDER });
    await this.history.createIndex({ ownerAccountId: 1, action: 1, ...AUDIT_ORDER });
    await this.history.createIndex(AUDIT_ORDER);
    await this.records.createIndexes([PENDING_INDEX]);
  }

  /** Where this store's unfinished changes wait for the outbox relay. */
  outbox(): OutboxQueue {
    return this.queue;
  }

  /** An index on the records. */
  async createCurrentIndex(spec: IndexSpecification): Promise<void> {
    await this.current.createIndex(spec);
  }

  /**
   * The indexes of the lists of records (`currentPage`), one per combination of their equality filters
   * (owner, status), each ending in the lists' order (newest first, ties by id) so a page is an index range
   * read from the cursor on; a search is a residual filter on that range.
   */
  async createListIndexes(): Promise<void> {
    const equalities: Array<Record<string, 1>> = [{}, { ownerAccountId: 1 }, { status: 1 }, { ownerAccountId: 1, status: 1 }];
    for (const equality of equalities) {
      await this.current.createIndex({ ...equality, ...NEWEST_FIRST });
    }
  }

  /** Records matching `filter`, without their outbox fields unless `projection` names what to read. */
  async findCurrent(filter: Filter<Document>, { sort, limit, projection }: FindCurrentOptions = {}): Promise<Current<S>[]> {
    const options: FindOptions = { projection: projection ?? WITHOUT_OUTBOX };
    let cursor = this.current.find(filter as Filter<Current<S>>, options);
    if (sort) cursor = cursor.sort(sort);
    if (limit !== undefined) cursor = cursor.limit(limit);
    return (await cursor.toArray()) as Current<S>[];
  }

  /**
   * Up to `count` records matching `filter`, newest first (or oldest first; ties by id), after `after` when
   * given: keyset paging on the indexes ending in `createdAt: -1, _id: -1` that the owning repository
   * declares (oldest first reads them backwards).
   */
  async currentPage(filter: Document, after: CurrentPosition | null, count: number, order: 'newest' | 'oldest' = 'newest'): Promise<Current<S>[]> {
    const oldest = order === 'oldest';
    const from = after && (oldest ? newerThan('createdAt', after[0], after[1]) : olderThan('createdAt', after[0], after[1]));
    const query = from ? { $and: [filter, from] } : filter;
    return this.findCurrent(query, { sort: oldest ? OLDEST_FIRST : NEWEST_FIRST, limit: count });
  }

  /**
   * How many records match `filter`, counted up to `cap` (`capped`: more than that): the ids of at most
   * `cap + 1` records read as a page is, in the lists' order on their indexes, so a count costs what a page
   * of `cap` costs whatever the collection holds (a `countDocuments` of the local store decodes every
   * document it counts).
   */
  async countCurrent(filter: Document, cap: number): Promise<{ count: number; capped: boolean }> {
    const counted = (await this.findCurrent(filter, { sort: NEWEST_FIRST, limit: cap + 1, projection: { _id: 1 } })).length;
    return { count: Math.min(counted, cap), capped: counted > cap };
  }

  /**
   * Up to `count` history entries matching `filter` in the audit's order (newest first, ties by entry id),
   * after `after` when given, without their events and with `projection`'s other cuts.
   */
  async historyPage(filter: Filter<HistoryEntry<S>>, after: HistoryPosition | null, count: number, projection: Record<string, 0> = {}): Promise<HistoryEntry<S>[]> {
    if (this.historyWrites.size > 0) await Promise.all([...this.historyWrites]);
    const query = after ? { $and: [filter, entriesAfter(this.entity, after)] } : filter;
    return (await this.history
      .find(query as Filter<HistoryEntry<S>>, { projection: { outbox: 0, ...projection } })
      .sort(AUDIT_ORDER)
      .limit(count)
      .toArray()) as HistoryEntry<S>[];
  }

  /** Every record in `_id` order, `batchSize` at a time (one cursor; each batch has its own deadline). */
  async *currentInBatches(batchSize = 500): AsyncGenerator<Current<S>[]> {
    let batch: Current<S>[] = [];
    const cursor = this.current.find({}, { batchSize, projection: WITHOUT_OUTBOX, ...wholeCollectionScan(this.current) }).sort({ _id: 1 });
    for await (const record of cursor) {
      batch.push(record as Current<S>);
      if (batch.length >= batchSize) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }

  /** The `_id` of the history entry that holds version `version` of record `id`. */
  static entryId(id: RecordId, version: number): string {
    return `${id}:${version}`;
  }

  /** The next version to write, for building events before calling change(). */
  static nextVersion(record: { version: number }): number {
    return record.version + 1;
  }

  /** Creates version 1 (one insert). Throws ConcurrentChangeError when the id is taken. */
  async create(id: RecordId, state: S, facts: ChangeFacts, events: KnownEvent[] = []): Promise<Current<S>> {
    return (await this.createAndPublish(id, state, facts, events)).changed;
  }

  /** create(), also telling whether the events are on the bus. */
  async createAndPublish(id: RecordId, state: S, facts: ChangeFacts, events: KnownEvent[] = []): Promise<Written<S>> {
    const change = pendingChange(1, state, facts, events);
    const changed = { ...state, _id: id, version: 1, createdAt: facts.at, updatedAt: facts.at } as Current<S>;
    try {
      await this.records.insertOne({ ...changed, pending: [change], pendingSince: facts.at } as never);
    } catch (error) {
      if (isDuplicateKeyError(error)) throw new ConcurrentChangeError(this.entity, id);
      throw error;
    }
    return { changed, published: await this.finish(id, 1, [change]) };
  }

  /**
   * Moves `record` (as read, at its version) to `next`. Throws ConcurrentChangeError if someone else moved it
   * first, or it does not exist.
   */
  async change(record: Current<S>, next: S, facts: ChangeFacts, events: KnownEvent[] = []): Promise<Current<S>> {
    return (await this.changeAndPublish(record, next, facts, events)).changed;
  }

  /** change(), also telling whether the change's events are on the bus (published beside its history insert). */
  async changeAndPublish(record: Current<S>, next: S, facts: ChangeFacts, events: KnownEvent[]): Promise<Written<S>> {
    const version = record.version + 1;
    const change = pendingChange(version, next, facts, events);
    const removed = Object.keys(record).filter((field) => !META_FIELDS.has(field) && !(field in next));
    const update: UpdateFilter<StoredRecord<S>> = {
      $set: { ...next, version, updatedAt: facts.at } as never,
      $push: { pending: change } as never,
      $min: { pendingSince: facts.at } as never,
    };
    if (removed.length > 0) update.$unset = Object.fromEntries(removed.map((field) => [field, ''])) as never;
    const after = await this.records.findOneAndUpdate({ _id: record._id, version: record.version } as Filter<StoredRecord<S>>, update, { returnDocument: 'after' });
    if (!after) throw new ConcurrentChangeError(this.entity, record._id);
    const changed = { ...next, _id: record._id, version, createdAt: after.createdAt, updatedAt: facts.at } as Current<S>;
    return { changed, published: await this.finish(record._id, version, after.pending ?? [change]) };
  }

  /** The record as it is now (one read by `_id`), without its outbox fields. */
  async load(id: RecordId): Promise<Current<S> | null> {
    return (await this.current.findOne({ _id: id } as Filter<Current<S>>, { projection: WITHOUT_OUTBOX })) as Current<S> | null;
  }

  /** Waits for the history inserts and removals of finished changes still running after their answers (tests, and a process that stops). */
  async settled(): Promise<void> {
    while (this.removals.size > 0) await Promise.all([...this.removals]);
  }

  /**
   * Publishes the events of `changes` in version order; true when they are on the bus. After the answer
   * (the caller's continuation runs first), writes their history entries and, when both succeeded, removes
   * the changes from the document; otherwise they stay for the relay.
   */
  private async finish(id: RecordId, version: number, changes: PendingChange<S>[]): Promise<boolean> {
    // A change made right after another finds the earlier one still pending while its removal runs after
    // its answer; what this process has published already is not published again.
    const key = String(id);
    const publishedBefore = this.publishedThrough.get(key) ?? 0;
    const unpublished = changes.filter((change) => change.version > publishedBefore);
    const published = await this.publish(unpublished.flatMap((change) => change.events));
    if (published) this.rememberPublished(key, version);
    this.finishLater(id, version, changes, published);
    return published;
  }

  private rememberPublished(key: string, version: number): void {
    // An entry whose removal failed (the store was down) stays until the record's next change here. Past the
    // bound every entry goes: what a newer change then finds pending is published again, which consumers
    // take as the redelivery the bus may make of any event.
    if (this.publishedThrough.size >= (this.options.rememberedRecords ?? 10_000) && !this.publishedThrough.has(key)) this.publishedThrough.clear();
    this.publishedThrough.set(key, Math.max(version, this.publishedThrough.get(key) ?? 0));
  }

  private finishLater(id: RecordId, version: number, changes: PendingChange<S>[], published: boolean): void {
    const written = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.writeHistory(id, changes));
    const historyWrite = written.then(
      () => undefined,
      () => undefined, // left pending: the relay writes it after OUTBOX_PENDING_GRACE_MS
    );
    const removal = written
      .then(async () => published && (await this.records.updateOne({ _id: id, version } as Filter<StoredRecord<S>>, { $unset: OUTBOX_FIELDS } as never)).matchedCount === 1)
      .then(
        (cleared) => {
          // Forgotten once the document holds none of these changes: while a newer change keeps them pending
          // (its write came first), that change's finish must still know they are published.
          if (cleared && this.publishedThrough.get(String(id)) === version) this.publishedThrough.delete(String(id));
        },
        () => undefined, // left pending: the relay finishes it after OUTBOX_PENDING_GRACE_MS
      )
      .finally(() => this.removals.delete(removal));
    this.historyWrites.add(historyWrite);
    void historyWrite.finally(() => this.historyWrites.delete(historyWrite));
    this.removals.add(removal);
  }

  private async publish(events: KnownEvent[]): Promise<boolean> {
    if (events.length === 0) return true;
    if (!this.options.publish) return false;
    try {
      await this.options.publish(events);
      return true;
    } catch {
      return false; // left pending: the relay publishes once the broker takes them
    }
  }

  /** Inserts the history entries of `changes`; an entry that exists (a duplicate `_id`) was written before. */
  private async writeHistory(id: RecordId, changes: PendingChange<S>[]): Promise<void> {
    const entries = changes.map((change) => this.entryOf(id, change));
    if (entries.length === 0) return;
    try {
      if (entries.length === 1) await this.history.insertOne(entries[0] as never);
      else await this.history.insertMany(entries as never[], { ordered: false });
    } catch (error) {
      if (!onlyDuplicates(error)) throw error;
    }
  }

  private entryOf(id: RecordId, { version, events, state, ...facts }: PendingChange<S>): HistoryEntry<S> {
    return { _id: VersionedStore.entryId(id, version), entity: this.entity, entityId: id, version, ownerAccountId: state.ownerAccountId, ...facts, state, outbox: events };
  }

  private async leftovers(cutoff: Date, limit: number, skip: readonly RecordId[]): Promise<RecordId[]> {
    const filter: Document = { pendingSince: { $lte: cutoff } };
    if (skip.length > 0) filter._id = { $nin: [...skip] };
    const found = await this.records.find(filter as Filter<StoredRecord<S>>, { projection: { _id: 1 } }).sort({ pendingSince: 1, _id: 1 }).limit(limit).toArray();
    return found.map((record) => record._id);
  }

  private async claim(id: RecordId, cutoff: Date, lease: RelayLease): Promise<ClaimedRecord | null> {
    const free = { $or: [{ relayLeaseUntil: { $exists: false } }, { relayLeaseUntil: { $lte: lease.now } }, { relayLeaseHolder: lease.holder }] };
    const claimed = await this.records.findOneAndUpdate(
      { _id: id, pendingSince: { $lte: cutoff }, ...free } as Filter<StoredRecord<S>>,
      { $set: { relayLeaseUntil: lease.until, relayLeaseHolder: lease.holder } } as never,
      { returnDocument: 'after' },
    );
    if (!claimed) return null;
    const pending = [...(claimed.pending ?? [])].sort((a, b) => a.version - b.version);
    return { _id: claimed._id, version: claimed.version, pending };
  }

  private async park(record: ClaimedRecord, change: PendingChange, event: unknown, problem: string, at: Date): Promise<void> {
    const eventId = (event as { id?: unknown } | null)?.id;
    const parked: ParkedEvent = {
      _id: `${this.records.collectionName}:${VersionedStore.entryId(record._id, change.version)}:${typeof eventId === 'string' ? eventId : change.events.indexOf(event as KnownEvent)}`,
      collection: this.records.collectionName,
      recordId: record._id,
      version: change.version,
      event,
      problem,
      at,
    };
    try {
      await this.parked.insertOne(parked);
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
    }
  }

  /**
   * Removes the claimed record's changes and the relay's hold when the record is still at the version it was
   * taken at; otherwise only the hold: the newer change's writer (or the relay's next pass) finishes them all.
   */
  private async release(record: ClaimedRecord): Promise<void> {
    const { matchedCount } = await this.records.updateOne({ _id: record._id, version: record.version } as Filter<StoredRecord<S>>, { $unset: OUTBOX_FIELDS } as never);
    if (matchedCount === 0) await this.letGo(record);
  }

  private async letGo(record: ClaimedRecord): Promise<void> {
    await this.records.updateOne({ _id: record._id } as Filter<StoredRecord<S>>, { $unset: { relayLeaseUntil: '', relayLeaseHolder: '' } } as never);
  }
}

function pendingChange<S>(version: number, state: S, facts: ChangeFacts, events: KnownEvent[]): PendingChange<S> {
  return { version, ...facts, reason: facts.reason ?? null, state, events };
}

/** Whether a failed insert failed only on `_id`s that exist (entries written before). */
function onlyDuplicates(error: unknown): boolean {
  const writeErrors = (error as { writeErrors?: unknown }).writeErrors;
  if (Array.isArray(writeErrors) && writeErrors.length > 0) return writeErrors.every((writeError) => (writeError as { code?: unknown }).code === 11000);
  return isDuplicateKeyError(error);
}
