/**
 * Records whose every change is an immutable, numbered history entry (docs/decisions/0002).
 *
 * A change from version v inserts history entry `<id>:<v+1>` carrying the new state, the audit facts
 * (actor, action, from, to, reason) and the events to publish, in ONE insert. The unique `_id` makes the
 * change exclusive even on FerretDB, which has no atomic conditional update: of two concurrent changes from
 * the same version exactly one is inserted; the other gets ConcurrentChangeError. A change with events first
 * inserts its pending marker (`@pilot/outbox`'s pending-markers.ts), which the outbox relay publishes from.
 *
 * The current state of each record is a projection of its newest entry, for fast reads, kept in the
 * collection of its id range, `<current>_r<k>`, which never holds more than RECORDS_PER_COLLECTION records
 * (named records: one of 64 collections by a hash of the key; projection-shards.ts, decision 0031). FerretDB
 * over SQLite scans a collection on every find, replace and delete by `_id`, so a read or a write by id reads
 * a bounded number of documents however many records there are. Projections are written by key alone (a
 * second condition makes FerretDB decode every document in Go), so a slower writer may overwrite a newer
 * projection with its older one: after every write the store looks for the next history entry and rolls
 * forward when there is one.
 *
 * Every entry is also copied, right after its insert, into `<history>_recent`, kept RECENT_ENTRIES_KEEP_MS:
 * the roll-forward lookups (the check after a projection write, `load`) look there, not in the history, whose
 * finds by `_id` scan it on FerretDB (decision 0030), hits in proportion to their age and misses whole.
 * A change whose process died between its entry and its copy is found by the record's next change (its
 * entry collides: `loadThrough` reads the history for it) or by the owner's repair (`loadThrough`).
 *
 * Every lookup is by a string `_id` (the projection's `_id` is the record's id as a string, with the id
 * itself in `id` for sorting; a history entry's is `<id>:<version>`). MongoDB answers it from the index.
 *
 * The store (and the relay beside it) uses the raw driver, not mongoose models (decision 0026): every
 * transition goes through its marker insert, entry insert, projection replace and lookups by `_id`, and a
 * model measured 0.3 to 0.6 ms more CPU per operation on each of them (tests/bench/mongoose-overhead.bench.ts);
 * mongoose also drops fields whose value is undefined where the driver stores null, which would change what
 * records written by earlier releases look like next to new ones. The collections are typed instead.
 */
import type { KnownEvent } from '@pilot/contracts';
import { isDuplicateKeyError, wholeCollectionScan } from '@pilot/mongo';
import type { Collection, Db, Document, Filter, IndexSpecification } from 'mongodb';
import { markFlaggedEntries, markPending, pendingCollectionName, type OutboxQueue, type PendingMarker } from '@pilot/outbox';
import { ProjectionShards, type FindCurrentOptions, type KeyedDocument } from './projection-shards';

/**
 * How long an entry's copy stays in `<history>_recent`: far longer than a change takes to write its
 * projection and run its check (milliseconds), and than the repairs' intervals (decision 0031).
 */
export const RECENT_ENTRIES_KEEP_MS = 60 * 60_000;
/** At most one sweep of the expired copies per interval and process. */
const RECENT_SWEEP_INTERVAL_MS = 60_000;

export class ConcurrentChangeError extends Error {
  constructor(entity: string, id: string | number) {
    super(`${entity} ${id} was changed concurrently`);
    this.name = 'ConcurrentChangeError';
  }
}

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
  entityId: string | number;
  version: number;
  /** Account that owns the record, so an owner can read its own audit entries. */
  ownerAccountId: string;
  state: S;
  outbox: KnownEvent[];
}

export type Current<S> = S & { _id: string | number; version: number; createdAt: Date; updatedAt: Date };

function keyOf(id: string | number): string {
  return String(id);
}

/** A stored projection as callers know it: `_id` is the record's id again (a number for numbered records). */
function fromStored<S>(stored: KeyedDocument): Current<S> {
  const { id, ...rest } = stored;
  return { ...rest, _id: (id as string | number | undefined) ?? rest._id } as Current<S>;
}

export type { FindCurrentOptions, KeyedDocument, SortSpec } from './projection-shards';
export { projectionCollectionName, RECORDS_PER_COLLECTION } from './projection-shards';

export interface VersionedStoreOptions {
  /** Time for the recent copies' retention (the injectable clock); the system clock by default. */
  clock?: { now(): Date };
}

export class VersionedStore<S extends { ownerAccountId: string }> {
  /** The history, for the owning repository's own queries (audit). */
  readonly history: Collection<HistoryEntry<S>>;
  private readonly entries: Collection<KeyedDocument>;
  /** Copies of the entries of the last RECENT_ENTRIES_KEEP_MS, for the roll-forward lookups. */
  private readonly recent: Collection<KeyedDocument>;
  private readonly pending: Collection<PendingMarker>;
  private readonly projections: ProjectionShards;
  private readonly clock: { now(): Date };
  private readonly outboxQueue: OutboxQueue;
  /** Roll-forward checks and sweeps still running (see writeProjection). */
  private readonly checks = new Set<Promise<void>>();
  private lastSweepAt: number | undefined;

  constructor(
    private readonly db: Db,
    readonly entity: string,
    /** The projections' base name; before 0014 the one collection that held them all. */
    private readonly currentCollection: string,
    historyCollection: string,
    options: VersionedStoreOptions = {},
  ) {
    this.history = db.collection<HistoryEntry<S>>(historyCollection);
    this.entries = db.collection<KeyedDocument>(historyCollection);
    this.recent = db.collection<KeyedDocument>(`${historyCollection}_recent`);
    this.pending = db.collection<PendingMarker>(pendingCollectionName(historyCollection));
    this.projections = new ProjectionShards(db, currentCollection);
    this.clock = options.clock ?? { now: () => new Date() };
    this.outboxQueue = { entries: db.collection(historyCollection), pending: this.pending, recentEntries: db.collection(this.recent.collectionName) };
  }

  /** Indexes, then what earlier layouts left: projections in one collection, entries flagged `outboxPending`. */
  async ensureIndexes(): Promise<void> {
    await this.history.createIndex({ entityId: 1, version: -1 });
    await this.history.createIndex({ ownerAccountId: 1, at: -1 });
    await this.history.createIndex({ at: -1 });
    await this.recent.createIndex({ copiedAt: 1 });
    await this.createCurrentIndex({ id: 1 });
    await this.moveProjectionsToTheirCollections();
    await markFlaggedEntries(this.outbox());
  }

  /** Where this store's events wait for the outbox relay. */
  outbox(): OutboxQueue {
    return this.outboxQueue;
  }

  /** An index on every projection collection. */
  createCurrentIndex(spec: IndexSpecification): Promise<void> {
    return this.projections.createIndex(spec);
  }

  /**
   * Current records matching `filter` (on the stored fields: `id` is the record's id), from every projection
   * collection at once, merged in the order of `sort` and cut at `limit`. Returned with `_id` as the record's id.
   */
  async findCurrent(filter: Filter<Document>, options: FindCurrentOptions = {}): Promise<Current<S>[]> {
    return (await this.projections.find(filter as Filter<KeyedDocument>, options)).map((stored) => fromStored<S>(stored));
  }

  /**
   * Projections of the earlier layouts are copied into the collection that holds them now, then removed
   * where they were: the collection that named them all before 0014 (with the id itself as `_id` in the
   * oldest), dropped once copied, and numbered records in the 64 hashed collections of 0014, deleted there
   * (the hashed collection dropped when that empties it). A copy already in place (an earlier start that
   * crashed, another replica) is never replaced: it is rolled forward from history instead, which never goes
   * back a version. Safe to run again at any point.
   */
  private async moveProjectionsToTheirCollections(): Promise<void> {
    const single = await this.db.listCollections({ name: this.currentCollection }, { nameOnly: true }).toArray();
    if (single.length > 0) {
      const collection = this.db.collection<KeyedDocument>(this.currentCollection);
      await this.moveProjectionsOutOf(collection);
      await dropIfExists(collection);
    }
    for (const collection of await this.projections.hashed()) {
      const moved = await this.moveProjectionsOutOf(collection);
      if (moved.length === 0) continue;
      await collection.deleteMany({ _id: { $in: moved } });
      if ((await collection.countDocuments({})) === 0) await dropIfExists(collection);
    }
  }

  /** Copies the projections in `source` that belong elsewhere to where they belong; returns their keys. */
  private async moveProjectionsOutOf(source: Collection<KeyedDocument>): Promise<string[]> {
    const moved: string[] = [];
    for (const old of await source.find({}, wholeCollectionScan(source)).toArray()) {
      const id = (old.id as string | number | undefined) ?? old._id;
      const stored = { ...old, _id: keyOf(id), id };
      const target = await this.projections.forWriting(stored._id);
      if (target.collectionName === source.collectionName) continue;
      try {
        await target.insertOne(stored);
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        await this.loadThrough(id, Number.MAX_SAFE_INTEGER);
      }
      moved.push(keyOf(old._id));
    }
    return moved;
  }

  /** Every current record, one projection collection at a time (a batch each, in id order for numbered records). */
  async *currentInBatches(): AsyncGenerator<Current<S>[]> {
    for (const collection of await this.projections.all()) {
      const batch = await collection.find({}).sort({ id: 1 }).toArray();
      if (batch.length > 0) yield batch.map((stored) => fromStored<S>(stored));
    }
  }

  /**
   * Rolls forward every record whose projection is behind its newest history entry, or missing: a change
   * whose process died before its copy, or whose copy expired before anything rolled it forward. Reads
   * every entry's id and version (the history whole: for the repairs at start and on their schedule, never
   * for an answer); returns the ids it rolled forward.
   */
  async rollForwardStale(): Promise<Array<string | number>> {
    const newest = new Map<string, { id: string | number; version: number }>();
    for await (const entry of this.history.find({}, { projection: { entityId: 1, version: 1 }, ...wholeCollectionScan(this.history) })) {
      const known = newest.get(keyOf(entry.entityId));
      if (!known || known.version < entry.version) newest.set(keyOf(entry.entityId), { id: entry.entityId, version: Number(entry.version) });
    }
    const projected = new Map<string, number>();
    for (const current of await this.findCurrent({}, { projection: { id: 1, version: 1 } })) projected.set(keyOf(current._id), current.version);
    const stale = [...newest].filter(([key, { version }]) => (projected.get(key) ?? 0) < version).map(([, record]) => record);
    for (const { id, version } of stale) await this.loadThrough(id, version);
    return stale.map(({ id }) => id);
  }

  /** The `_id` of the history entry that holds version `version` of record `id` (and its events). */
  static entryId(id: string | number, version: number): string {
    return `${id}:${version}`;
  }

  /** Creates version 1. Throws ConcurrentChangeError when the id is taken (its projection rolled forward first). */
  async create(id: string | number, state: S, facts: ChangeFacts, events: KnownEvent[] = []): Promise<Current<S>> {
    await this.insertEntry(id, 1, state, facts, events);
    const current = { ...state, _id: id, version: 1, createdAt: facts.at, updatedAt: facts.at } as Current<S>;
    await this.writeProjection(current);
    return current;
  }

  /**
   * Moves `record` (as read, at its version) to `next`. Throws ConcurrentChangeError if someone else moved it
   * first (or `record` was read from a projection that missed a change: the projection is rolled forward).
   */
  async change(record: Current<S>, next: S, facts: ChangeFacts, events: KnownEvent[] = []): Promise<Current<S>> {
    return (await this.changeAlongside(record, next, facts, events, async () => undefined)).changed;
  }

  /**
   * change(), running `alongside` (publishing the change's events, say) as soon as the change is recorded,
   * while its projection is written: the caller waits for the slower of the two, not for both in turn.
   */
  async changeAlongside<R>(
    record: Current<S>,
    next: S,
    facts: ChangeFacts,
    events: KnownEvent[],
    alongside: () => Promise<R>,
  ): Promise<{ changed: Current<S>; alongside: R }> {
    const version = record.version + 1;
    await this.insertEntry(record._id, version, next, facts, events);
    const changed = { ...next, _id: record._id, version, createdAt: record.createdAt, updatedAt: facts.at } as Current<S>;
    const [, result] = await Promise.all([this.writeProjection(changed), alongside()]);
    return { changed, alongside: result };
  }

  /**
   * The projection alone, without looking for newer history entries: one read where load() takes two. It may
   * miss a change that is being written or was interrupted; change() from it detects that (the next version's
   * entry exists), rolls the projection forward and throws ConcurrentChangeError, so a caller that retries on
   * that error never acts on a stale state. Never decide a refusal on it: check with load() first.
   */
  async loadProjection(id: string | number): Promise<Current<S> | null> {
    const stored = await this.projections.of(keyOf(id)).findOne({ _id: keyOf(id) });
    return stored ? fromStored<S>(stored) : null;
  }

  /**
   * The current state, rolled forward from the recent copies if a change was interrupted after its copy, or
   * its projection was overtaken. (A change interrupted before its copy, a few milliseconds' window, shows
   * after its repair or the record's next change: see loadThrough.)
   */
  load(id: string | number): Promise<Current<S> | null> {
    return this.loadThrough(id, 0);
  }

  /**
   * load(), also reading the history for the versions up to `known` whose copies are missing (expired, or
   * never made): for a caller that knows those entries exist (a change that collided, a repair that read the
   * history). On FerretDB over SQLite each such read scans the history up to the entry, or all of it when
   * `known` is past the last one.
   */
  async loadThrough(id: string | number, known: number): Promise<Current<S> | null> {
    const current = await this.loadProjection(id);
    let latest: HistoryEntry<S> | null = null;
    for (let version = (current?.version ?? 0) + 1; ; version += 1) {
      const byId = { _id: VersionedStore.entryId(id, version) };
      const entry = ((await this.recent.findOne(byId)) ?? (version <= known ? await this.entries.findOne(byId) : null)) as HistoryEntry<S> | null;
      if (!entry) break;
      latest = entry;
    }
    return latest ? this.project(latest, current) : current;
  }

  /** The next version to write, for building events before calling change(). */
  static nextVersion(record: { version: number }): number {
    return record.version + 1;
  }

  private async project(entry: HistoryEntry<S>, current: Current<S> | null): Promise<Current<S>> {
    const projected = {
      ...entry.state,
      _id: entry.entityId,
      version: entry.version,
      createdAt: current?.createdAt ?? entry.at,
      updatedAt: entry.at,
    } as Current<S>;
    await this.writeProjection(projected);
    return projected;
  }

  /**
   * Writes the projection by key alone. A slower writer may have landed an older projection on top of a
   * newer one, so every write is followed by a check for the next version's entry (in the recent copies),
   * rolling forward when it exists: the last write of all is always checked, so crossing writers end with the
   * newest state. Nobody waits for the check. Should it fail or the process stop first, the record's next
   * change (its entry collides), a load or the owner's repair rolls the projection forward.
   */
  private async writeProjection(current: Current<S>): Promise<void> {
    const key = keyOf(current._id);
    const shard = await this.projections.forWriting(key);
    const stored: KeyedDocument = { ...current, _id: key, id: current._id };
    try {
      await shard.replaceOne({ _id: key }, stored, { upsert: true });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      await shard.replaceOne({ _id: key }, stored); // two upserts inserted at once: it exists now
    }
    this.inBackground(this.checkForNewer(current));
  }

  /** Rolls the projection forward if the version after `current` has an entry (see writeProjection). */
  private async checkForNewer(current: Current<S>): Promise<void> {
    const newer = await this.recent.findOne({ _id: VersionedStore.entryId(current._id, current.version + 1) }, { projection: { _id: 1 } });
    if (newer) await this.load(current._id);
  }

  /** Runs `work` after the answer; its failure is left to the repairs (settled() waits for it in tests). */
  private inBackground(work: Promise<unknown>): void {
    const running = work.then(() => undefined).catch(() => undefined);
    this.checks.add(running);
    void running.finally(() => this.checks.delete(running));
  }

  /** Resolves when the roll-forward checks and sweeps started so far have run (tests wait for it; a process that stops leaves them to the repair). */
  async settled(): Promise<void> {
    while (this.checks.size > 0) await Promise.all([...this.checks]);
  }

  private async insertEntry(id: string | number, version: number, state: S, facts: ChangeFacts, events: KnownEvent[]): Promise<void> {
    const entryId = VersionedStore.entryId(id, version);
    const entry: HistoryEntry<S> = {
      _id: entryId,
      entity: this.entity,
      entityId: id,
      version,
      ownerAccountId: state.ownerAccountId,
      ...facts,
      reason: facts.reason ?? null,
      state,
      outbox: events,
    };
    // Before the entry, so an entry with events is never unmarked. A writer that loses the race for this
    // version leaves the marker to the winner's entry: at worst its events are published once more.
    if (events.length > 0) await markPending(this.pending, entryId, facts.at);
    try {
      await this.entries.insertOne(entry);
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      // Version `version` exists, so whoever decided from an older state rolls the projection forward to
      // it first (from the history if its copy is missing), and a retry starts from there.
      await this.loadThrough(id, version);
      throw new ConcurrentChangeError(this.entity, id);
    }
    await this.copyToRecent(entry);
  }

  /**
   * The entry's copy for the roll-forward lookups; then, at most once a minute, the expired copies go. The
   * change is recorded by now, so a copy that fails does not fail it: that change is then found as one that
   * died before its copy (the record's next change collides with it, or a repair reads the history).
   */
  private async copyToRecent(entry: HistoryEntry<S>): Promise<void> {
    const now = this.clock.now();
    try {
      await this.recent.insertOne({ ...entry, copiedAt: now } as KeyedDocument);
    } catch {
      // A duplicate is a copy already made; any other failure is left to the paths above.
    }
    if (this.lastSweepAt === undefined || Math.abs(now.getTime() - this.lastSweepAt) >= RECENT_SWEEP_INTERVAL_MS) {
      this.lastSweepAt = now.getTime();
      this.inBackground(this.sweepRecent(now));
    }
  }

  /** Deletes the copies older than RECENT_ENTRIES_KEEP_MS at `now`; how many went. */
  async sweepRecent(now: Date = this.clock.now()): Promise<number> {
    const cutoff = new Date(now.getTime() - RECENT_ENTRIES_KEEP_MS);
    return (await this.recent.deleteMany({ copiedAt: { $lt: cutoff } })).deletedCount;
  }
}

async function dropIfExists(collection: Collection<KeyedDocument>): Promise<void> {
  await collection.drop().catch((error: unknown) => {
    if ((error as { codeName?: unknown }).codeName !== 'NamespaceNotFound') throw error;
  });
}
