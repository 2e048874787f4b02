/**
 * Records whose every change is an immutable, numbered history entry (docs/decisions/0002).
 *
 * A change from version v inserts history entry `<id>:<v+1>` carrying the new state, the audit facts
 * (actor, action, from, to, reason) and the events to publish, in ONE insert. The unique `_id` makes the
 * change exclusive even on FerretDB, which has no atomic conditional update: of two concurrent changes from
 * the same version exactly one is inserted; the other gets ConcurrentChangeError. A change with events first
 * inserts its pending marker (`@pilot/outbox`'s pending-markers.ts), which the outbox relay publishes from.
 *
 * The current state of each record is a projection of its newest entry, for fast reads, kept in one of
 * PROJECTION_SHARDS collections `<current>_<nn>` chosen by a hash of the record's key (docs/decisions/0014):
 * FerretDB over SQLite scans a whole collection on every write, so a write scans one shard. Projections are
 * written by key alone (a second condition makes FerretDB decode every document in Go), so a slower writer
 * may overwrite a newer projection with its older one: after every write the store looks for the next
 * history entry and rolls forward when there is one. If a process dies between its entry and its projection,
 * the next change (or read through `load`) rolls the projection forward from history.
 *
 * Every lookup is by a string `_id` (the projection's `_id` is the record's id as a string, with the id
 * itself in `id` for sorting; a history entry's is `<id>:<version>`). MongoDB answers it from the index;
 * FerretDB over SQLite scans the collection in insertion order until it finds the document (decision 0030),
 * so a lookup that misses reads the whole collection: the answer paths read projections (one shard each)
 * and insert history entries (the unique index), and leave lookups in the history off them where they can.
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

/** How many collections hold the projections of one store. */
export const PROJECTION_SHARDS = 64;

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

export class VersionedStore<S extends { ownerAccountId: string }> {
  /** The history, for the owning repository's own queries (audit). */
  readonly history: Collection<HistoryEntry<S>>;
  private readonly entries: Collection<KeyedDocument>;
  private readonly pending: Collection<PendingMarker>;
  private readonly projections: ProjectionShards;
  /** Roll-forward checks still running (see writeProjection). */
  private readonly checks = new Set<Promise<void>>();

  constructor(
    private readonly db: Db,
    readonly entity: string,
    /** The projections' base name; before 0014 the one collection that held them all. */
    private readonly currentCollection: string,
    historyCollection: string,
  ) {
    this.history = db.collection<HistoryEntry<S>>(historyCollection);
    this.entries = db.collection<KeyedDocument>(historyCollection);
    this.pending = db.collection<PendingMarker>(pendingCollectionName(historyCollection));
    this.projections = new ProjectionShards(db, currentCollection, PROJECTION_SHARDS);
  }

  /** Indexes, then what earlier layouts left: projections in one collection, entries flagged `outboxPending`. */
  async ensureIndexes(): Promise<void> {
    await this.history.createIndex({ entityId: 1, version: -1 });
    // Only the migration of flagged entries reads it (once per start); MongoDB answers that from the index.
    await this.history.createIndex({ outboxPending: 1 });
    await this.history.createIndex({ ownerAccountId: 1, at: -1 });
    await this.history.createIndex({ at: -1 });
    await this.createCurrentIndex({ id: 1 });
    await this.moveProjectionsToShards();
    await markFlaggedEntries(this.outbox());
  }

  /** Where this store's events wait for the outbox relay. */
  outbox(): OutboxQueue {
    return { entries: this.db.collection(this.history.collectionName), pending: this.pending };
  }

  /** An index on every projection shard. */
  createCurrentIndex(spec: IndexSpecification): Promise<void> {
    return this.projections.createIndex(spec);
  }

  /**
   * Current records matching `filter` (on the stored fields: `id` is the record's id), from every shard at
   * once, merged in the order of `sort` and cut at `limit`. Returned with `_id` as the record's id.
   */
  async findCurrent(filter: Filter<Document>, options: FindCurrentOptions = {}): Promise<Current<S>[]> {
    return (await this.projections.find(filter as Filter<KeyedDocument>, options)).map((stored) => fromStored<S>(stored));
  }

  /**
   * Projections of the earlier layouts, all in the collection that now names the shards (with the id itself
   * as `_id` in the oldest), are copied into their shard, then that collection is dropped. A copy already
   * there (an earlier start that crashed, another replica) is never replaced: it is rolled forward from
   * history instead, which never goes back a version. Safe to run again at any point.
   */
  private async moveProjectionsToShards(): Promise<void> {
    const found = await this.db.listCollections({ name: this.currentCollection }, { nameOnly: true }).toArray();
    if (found.length === 0) return;
    const single = this.db.collection<KeyedDocument>(this.currentCollection);
    const byShard = new Map<Collection<KeyedDocument>, KeyedDocument[]>();
    for (const old of await single.find({}, wholeCollectionScan(single)).toArray()) {
      const id = (old.id as string | number | undefined) ?? old._id;
      const stored = { ...old, _id: keyOf(id), id };
      const shard = this.projections.of(stored._id);
      byShard.set(shard, [...(byShard.get(shard) ?? []), stored]);
    }
    await Promise.all(
      [...byShard].map(async ([shard, documents]) => {
        for (const document of documents) {
          try {
            await shard.insertOne(document);
          } catch (error) {
            if (!isDuplicateKeyError(error)) throw error;
            await this.load(document.id as string | number);
          }
        }
      }),
    );
    await single.drop().catch((error: unknown) => {
      if ((error as { codeName?: unknown }).codeName !== 'NamespaceNotFound') throw error;
    });
  }

  /** The `_id` of the history entry that holds version `version` of record `id` (and its events). */
  static entryId(id: string | number, version: number): string {
    return `${id}:${version}`;
  }

  /** Creates version 1. Throws ConcurrentChangeError when the id is taken. */
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
    try {
      await this.insertEntry(record._id, version, next, facts, events);
    } catch (error) {
      if (error instanceof ConcurrentChangeError) await this.load(record._id);
      throw error;
    }
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

  /** The current state, rolled forward from history if a change was interrupted. */
  async load(id: string | number): Promise<Current<S> | null> {
    const current = await this.loadProjection(id);
    // A change interrupted between its history insert and its projection left newer entries behind.
    let latest: HistoryEntry<S> | null = null;
    for (let version = (current?.version ?? 0) + 1; ; version += 1) {
      const entry = (await this.entries.findOne({ _id: VersionedStore.entryId(id, version) })) as HistoryEntry<S> | null;
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
   * newer one, so every write is followed by a check for the next version's entry, rolling forward when it
   * exists: the last write of all is always checked, so crossing writers end with the newest state. Nobody
   * waits for the check: on FerretDB over SQLite a find by `_id` scans the collection (decision 0030), and
   * this one misses, so it reads the whole history. Should it fail or the process stop first, the record's
   * next change (its entry collides), a load or the campaign repair rolls the projection forward.
   */
  private async writeProjection(current: Current<S>): Promise<void> {
    const key = keyOf(current._id);
    const shard = this.projections.of(key);
    const stored: KeyedDocument = { ...current, _id: key, id: current._id };
    try {
      await shard.replaceOne({ _id: key }, stored, { upsert: true });
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      await shard.replaceOne({ _id: key }, stored); // two upserts inserted at once: it exists now
    }
    this.checkForNewer(current);
  }

  /** Rolls the projection forward, later, if the version after `current` has an entry (see writeProjection). */
  private checkForNewer(current: Current<S>): void {
    const check = this.entries
      .findOne({ _id: VersionedStore.entryId(current._id, current.version + 1) }, { projection: { _id: 1 } })
      .then(async (newer) => {
        if (newer) await this.load(current._id);
      })
      .catch(() => undefined);
    this.checks.add(check);
    void check.finally(() => this.checks.delete(check));
  }

  /** Resolves when the roll-forward checks started so far have run (tests wait for it; a process that stops leaves them to the repair). */
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
      if (isDuplicateKeyError(error)) throw new ConcurrentChangeError(this.entity, id);
      throw error;
    }
  }
}
