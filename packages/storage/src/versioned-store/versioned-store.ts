/**
 * Records whose every change is an immutable, numbered history entry (docs/storage.md).
 *
 * Two collections per kind of record: the history (`campaign_history`) and the current state
 * (`campaigns`). A change from version v inserts history entry `<id>:<v+1>` carrying the new state, the
 * audit facts (actor, action, from, to, reason) and the events to publish, in ONE insert. The unique `_id`
 * makes the change exclusive on every store, FerretDB included, which has no atomic conditional update: of
 * two concurrent changes from the same version exactly one is inserted; the other gets
 * ConcurrentChangeError. The entry is the outbox (pending-entries.ts): it carries `pendingSince` until the
 * change is finished.
 *
 * The current state of each record is a projection of its newest entry under the record's own id (a number
 * for numbered records, a string for named ones), written by `_id` alone: a conditional replace is not atomic
 * on FerretDB. A slower writer may so overwrite a newer projection with its older one, so after writing, a
 * writer looks up the next version's entry by `_id` and rolls forward when there is one: crossing writers end
 * with the newest state. A change is finished (its `pendingSince` removed) only after its projection write,
 * that lookup and its publish all succeeded; whatever interrupts them leaves the entry pending for the outbox
 * relay, which rolls the projection forward (`load`) and publishes. So a change costs at most three writes:
 * the entry, the projection, the finish. The writer answers once the projection is written and the events
 * are published; the lookups and the finishes run after the answer, in batches of the changes answered
 * within FINISH_DELAY_MS (finish-batches.ts: one lookup and one update a batch; `settled()` waits for
 * them), since whoever reads the state to change it uses `load()`, which reads the newer entries itself.
 *
 * Every lookup here is by `_id`; MongoDB and the local store (built with its `_id` patch)
 * answer it from the index. The raw driver is used, not mongoose models: every transition
 * goes through these writes and lookups, and a model measured 0.3 to 0.6 ms more CPU on each.
 */
import type { KnownEvent } from '@pilot/contracts';
import { sameInstantAfter } from '@pilot/contracts';
import { ALL_IDS, isDuplicateKeyError, olderThan, wholeCollectionScan } from '../mongo';
import { FinishBatches } from './finish-batches';
import { markAllFinished, PENDING_INDEX, type OutboxEntry, type OutboxQueue } from './pending-entries';
import type { Collection, Db, Document, Filter, FindOptions, IndexSpecification } from 'mongodb';
import { positiveIntOf } from '@pilot/platform';

export class ConcurrentChangeError extends Error {
  constructor(entity: string, id: RecordId) {
    super(`${entity} ${id} was changed concurrently`);
    this.name = 'ConcurrentChangeError';
  }
}

/** A record's id: a positive integer for numbered records, a name otherwise. */
export type RecordId = string | number;

export interface ChangeFacts {
  at: Date;
  actorAccountId: string;
  action: string;
  from: string | null;
  to: string | null;
  reason?: string | null;
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
  /** Present until the change is finished (see the module comment). */
  pendingSince?: Date;
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
/** The order of the audit: newest first, ties by entry id. */
const AUDIT_ORDER = { at: -1, _id: -1 } as const;

/**
 * How long the finishes of answered changes wait to be done together: short beside the relay's grace
 * (OUTBOX_PENDING_GRACE_MS, seconds), long enough to gather the changes of a busy writer.
 */
const FINISH_DELAY_MS = 100;

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
   * Publishes a change's events with broker confirms, right after its entry is written and beside its
   * projection write. Without it (or when it fails) the events wait for the outbox relay.
   */
  publish?: (events: KnownEvent[]) => Promise<void>;
  /** How long the finishes of answered changes wait to be done together (FINISH_DELAY_MS). */
  finishDelayMs?: number;
}

export class VersionedStore<S extends { ownerAccountId: string }> {
  /** The history, for the owning repository's own queries (audit). */
  readonly history: Collection<HistoryEntry<S>>;
  /** The current projections, for the owning repository's own queries (lists). */
  readonly current: Collection<Current<S>>;
  private readonly entries: Collection<OutboxEntry>;
  private readonly queue: OutboxQueue;
  /** The finishes waiting after their changes' answers. */
  private readonly finishes: FinishBatches<Written<S>>;

  constructor(
    db: Db,
    readonly entity: string,
    currentCollection: string,
    historyCollection: string,
    private readonly options: VersionedStoreOptions = {},
  ) {
    this.history = db.collection<HistoryEntry<S>>(historyCollection);
    this.current = db.collection<Current<S>>(currentCollection);
    this.entries = db.collection<OutboxEntry>(historyCollection);
    this.finishes = new FinishBatches((batch) => this.finishAll(batch), options.finishDelayMs ?? FINISH_DELAY_MS);
    this.queue = { entries: this.entries, finish: async (entry) => void (await this.load(entityIdOf(entry._id))) };
  }

  /** The history's indexes: the audit's order by record, by owner and over all, and the unfinished entries. */
  async ensureIndexes(): Promise<void> {
    await this.history.createIndex({ entityId: 1, ...AUDIT_ORDER });
    await this.history.createIndex({ ownerAccountId: 1, ...AUDIT_ORDER });
    await this.history.createIndex(AUDIT_ORDER);
    await this.entries.createIndexes([PENDING_INDEX]);
  }

  /** Where this store's unfinished changes wait for the outbox relay. */
  outbox(): OutboxQueue {
    return this.queue;
  }

  /** An index on the current projections. */
  async createCurrentIndex(spec: IndexSpecification): Promise<void> {
    await this.current.createIndex(spec);
  }

  /**
   * The indexes of the lists of current records (`currentPage`), one per combination of their equality
   * filters (owner, status), each ending in the lists' order (newest first, ties by id) so a page is an
   * index range read from the cursor on; a search is a residual filter on that range.
   */
  async createListIndexes(): Promise<void> {
    const equalities: Array<Record<string, 1>> = [{}, { ownerAccountId: 1 }, { status: 1 }, { ownerAccountId: 1, status: 1 }];
    for (const equality of equalities) {
      await this.current.createIndex({ ...equality, ...NEWEST_FIRST });
    }
  }

  /** Current records matching `filter`. */
  async findCurrent(filter: Filter<Document>, { sort, limit, projection }: FindCurrentOptions = {}): Promise<Current<S>[]> {
    const options: FindOptions = {};
    if (projection) options.projection = projection;
    let cursor = this.current.find(filter as Filter<Current<S>>, options);
    if (sort) cursor = cursor.sort(sort);
    if (limit !== undefined) cursor = cursor.limit(limit);
    return (await cursor.toArray()) as Current<S>[];
  }

  /**
   * Up to `count` current records matching `filter`, newest first (ties by id), after `after` when given:
   * keyset paging on the indexes ending in `createdAt: -1, _id: -1` that the owning repository declares.
   */
  async currentPage(filter: Document, after: CurrentPosition | null, count: number): Promise<Current<S>[]> {
    const query = after ? { $and: [filter, olderThan('createdAt', after[0], after[1])] } : filter;
    return this.findCurrent(query, { sort: NEWEST_FIRST, limit: count });
  }

  /**
   * Up to `count` history entries matching `filter` in the audit's order (newest first, ties by entry id),
   * after `after` when given, without their events and with `projection`'s other cuts.
   */
  async historyPage(filter: Filter<HistoryEntry<S>>, after: HistoryPosition | null, count: number, projection: Record<string, 0> = {}): Promise<HistoryEntry<S>[]> {
    const query = after ? { $and: [filter, entriesAfter(this.entity, after)] } : filter;
    return (await this.history
      .find(query as Filter<HistoryEntry<S>>, { projection: { outbox: 0, ...projection } })
      .sort(AUDIT_ORDER)
      .limit(count)
      .toArray()) as HistoryEntry<S>[];
  }

  /** Every current record in `_id` order, `batchSize` at a time (one cursor; each batch has its own deadline). */
  async *currentInBatches(batchSize = 500): AsyncGenerator<Current<S>[]> {
    let batch: Current<S>[] = [];
    for await (const record of this.current.find({}, { batchSize, ...wholeCollectionScan(this.current) }).sort({ _id: 1 })) {
      batch.push(record as Current<S>);
      if (batch.length >= batchSize) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
  }

  /** The `_id` of the history entry that holds version `version` of record `id` (and its events). */
  static entryId(id: RecordId, version: number): string {
    return `${id}:${version}`;
  }

  /** The next version to write, for building events before calling change(). */
  static nextVersion(record: { version: number }): number {
    return record.version + 1;
  }

  /** Creates version 1. Throws ConcurrentChangeError when the id is taken (its projection rolled forward first). */
  async create(id: RecordId, state: S, facts: ChangeFacts, events: KnownEvent[] = []): Promise<Current<S>> {
    return (await this.write(id, 1, state, facts, events, facts.at)).changed;
  }

  /**
   * Moves `record` (as read, at its version) to `next`. Throws ConcurrentChangeError if someone else moved it
   * first (or `record` was read from a projection that missed a change: the projection is rolled forward).
   */
  async change(record: Current<S>, next: S, facts: ChangeFacts, events: KnownEvent[] = []): Promise<Current<S>> {
    return (await this.changeAndPublish(record, next, facts, events)).changed;
  }

  /** change(), also telling whether the change's events are on the bus (published beside the projection write). */
  changeAndPublish(record: Current<S>, next: S, facts: ChangeFacts, events: KnownEvent[]): Promise<Written<S>> {
    return this.write(record._id, record.version + 1, next, facts, events, record.createdAt);
  }

  /**
   * The projection alone: one read where load() may take more. It may miss a change that is being written
   * or was interrupted; change() from it detects that (the next version's entry exists), rolls the
   * projection forward and throws ConcurrentChangeError, so a caller that retries on that error never acts
   * on a stale state. Never decide a refusal on it: check with load() first.
   */
  async loadProjection(id: RecordId): Promise<Current<S> | null> {
    return (await this.current.findOne({ _id: id } as Filter<Current<S>>)) as Current<S> | null;
  }

  /** The current state, rolled forward from the history when a change was interrupted or its projection overtaken. */
  async load(id: RecordId): Promise<Current<S> | null> {
    const current = await this.loadProjection(id);
    let latest: HistoryEntry<S> | null = null;
    for (let version = (current?.version ?? 0) + 1; ; version += 1) {
      const entry = await this.history.findOne({ _id: VersionedStore.entryId(id, version) });
      if (!entry) break;
      latest = entry as HistoryEntry<S>;
    }
    if (!latest) return current;
    const createdAt = current?.createdAt ?? (await this.history.findOne({ _id: VersionedStore.entryId(id, 1) }, { projection: { at: 1 } }))?.at ?? latest.at;
    const projected = { ...latest.state, _id: id, version: latest.version, createdAt, updatedAt: latest.at } as Current<S>;
    await this.writeProjection(projected);
    return projected;
  }

  /** Finishes the changes answered so far, without waiting for their batch's delay (for tests, and a process that stops). */
  settled(): Promise<void> {
    return this.finishes.settled();
  }

  private async write(id: RecordId, version: number, state: S, facts: ChangeFacts, events: KnownEvent[], createdAt: Date): Promise<Written<S>> {
    await this.insertEntry(id, version, state, facts, events);
    const changed = { ...state, _id: id, version, createdAt, updatedAt: facts.at } as Current<S>;
    const [, published] = await Promise.all([this.replaceProjection(changed), this.publish(events)]);
    this.finishes.add({ changed, published });
    return { changed, published };
  }

  /**
   * After the answers: rolls forward the records a newer version was written for meanwhile (one lookup of
   * the next versions' entries), then removes `pendingSince` from the changes whose events are on the bus
   * (one update). Whatever fails here leaves its entries to the relay, which finishes them again (their
   * events once more, which consumers drop).
   */
  private async finishAll(batch: Written<S>[]): Promise<void> {
    let overtaken: HistoryEntry<S>[];
    try {
      const nextIds = batch.map(({ changed }) => VersionedStore.entryId(changed._id, changed.version + 1));
      overtaken = (await this.history.find({ _id: { $in: nextIds } } as Filter<HistoryEntry<S>>, { projection: { _id: 1 } }).toArray()) as HistoryEntry<S>[];
    } catch {
      return; // left pending: the relay finishes them after OUTBOX_PENDING_GRACE_MS
    }
    const notRolledForward = new Set<RecordId>();
    for (const id of new Set(overtaken.map((entry) => entityIdOf(entry._id)))) {
      await this.load(id).catch(() => notRolledForward.add(id));
    }
    const finished = batch.filter(({ changed, published }) => published && !notRolledForward.has(changed._id));
    if (finished.length === 0) return;
    await markAllFinished(
      this.entries,
      finished.map(({ changed }) => VersionedStore.entryId(changed._id, changed.version)),
    ).catch(() => undefined);
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

  /**
   * Writes the projection by `_id` alone, then rolls forward if the next version's entry exists (a slower
   * writer's projection landed after a newer one's: see the module comment).
   */
  private async writeProjection(current: Current<S>): Promise<void> {
    await this.replaceProjection(current);
    await this.rollForwardIfOvertaken(current);
  }

  private async replaceProjection(current: Current<S>): Promise<void> {
    const byId = { _id: current._id } as Filter<Current<S>>;
    try {
      await this.current.replaceOne(byId, current, { upsert: true });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      await this.current.replaceOne(byId, current); // two upserts inserted at once: it exists now
    }
  }

  private async rollForwardIfOvertaken(current: Current<S>): Promise<void> {
    const newer = await this.history.findOne({ _id: VersionedStore.entryId(current._id, current.version + 1) }, { projection: { _id: 1 } });
    if (newer) await this.load(current._id);
  }

  private async insertEntry(id: RecordId, version: number, state: S, facts: ChangeFacts, events: KnownEvent[]): Promise<void> {
    const entry: HistoryEntry<S> = {
      _id: VersionedStore.entryId(id, version),
      entity: this.entity,
      entityId: id,
      version,
      ownerAccountId: state.ownerAccountId,
      ...facts,
      reason: facts.reason ?? null,
      state,
      outbox: events,
      pendingSince: facts.at,
    };
    try {
      await this.history.insertOne(entry as never);
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      // Version `version` exists, so whoever decided from an older state rolls the projection forward to
      // it first, and a retry starts from there.
      await this.load(id);
      throw new ConcurrentChangeError(this.entity, id);
    }
  }
}

/** The record id of a history entry's `_id` (`<id>:<version>`): a number when it is written as one. */
export function entityIdOf(entryId: string): RecordId {
  const id = entryId.slice(0, entryId.lastIndexOf(':'));
  return positiveIntOf(id) ?? id;
}
