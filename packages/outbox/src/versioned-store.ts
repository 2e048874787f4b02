/**
 * Records whose every change is an immutable, numbered history entry (docs/decisions/0002).
 *
 * A change from version v inserts history entry `<id>:<v+1>` carrying the new state, the audit facts
 * (actor, action, from, to, reason) and the events to publish, in ONE insert. The unique `_id` makes the
 * change exclusive even on FerretDB, which has no atomic conditional update: of two concurrent changes from
 * the same version exactly one is inserted; the other gets ConcurrentChangeError. The `current` document
 * is a projection of the newest entry for fast reads; if a process dies between the two writes, the next
 * change (or read through `load`) rolls the projection forward from history.
 *
 * Every lookup is by a string `_id` (the projection's `_id` is the record's id as a string, with the id
 * itself in `id` for sorting; a history entry's is `<id>:<version>`), the one lookup every store answers
 * without a scan: FerretDB over SQLite scans for a number `_id` or any other field, so a load costs the same
 * with 10 or 100,000 records.
 */
import type { KnownEvent } from '@pilot/contracts';
import type { Collection, Db, Document } from 'mongodb';

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
  outboxPending: boolean;
}

export type Current<S> = S & { _id: string | number; version: number; createdAt: Date; updatedAt: Date };

/** How a projection is stored: `_id` is the id as a string, `id` the id itself. */
type StoredCurrent<S> = Omit<Current<S>, '_id'> & { _id: string; id: string | number };

function keyOf(id: string | number): string {
  return String(id);
}

/** A document whose `_id` is a string or a number, never an ObjectId. */
export interface KeyedDocument extends Document {
  _id: string | number;
}

export class VersionedStore<S extends { ownerAccountId: string }> {
  /** The projections and the history, for the owning repository's own queries (lists, audit). */
  readonly current: Collection<Document>;
  readonly history: Collection<Document>;
  /** The same collections, typed by their string or number `_id`, for lookups by key. */
  private readonly projections: Collection<KeyedDocument>;
  private readonly entries: Collection<KeyedDocument>;

  constructor(
    db: Db,
    readonly entity: string,
    currentCollection: string,
    historyCollection: string,
  ) {
    this.current = db.collection(currentCollection);
    this.history = db.collection(historyCollection);
    this.projections = db.collection<KeyedDocument>(currentCollection);
    this.entries = db.collection<KeyedDocument>(historyCollection);
  }

  async ensureIndexes(): Promise<void> {
    await this.history.createIndex({ entityId: 1, version: -1 });
    await this.history.createIndex({ outboxPending: 1 });
    await this.history.createIndex({ ownerAccountId: 1, at: -1 });
    await this.history.createIndex({ at: -1 });
    await this.current.createIndex({ id: 1 });
    await this.keyProjectionsByString();
  }

  /**
   * Projections written before lookups went by string `_id` had the id itself as `_id` and no `id`:
   * each is written again under its string key and the old one removed. Safe to run again after a crash.
   */
  private async keyProjectionsByString(): Promise<void> {
    for await (const old of this.projections.find({ id: { $exists: false } })) {
      if (typeof old._id === 'string') continue;
      try {
        await this.projections.insertOne({ ...old, _id: keyOf(old._id), id: old._id });
      } catch (error) {
        if ((error as { code?: unknown }).code !== 11000) throw error;
      }
      await this.projections.deleteOne({ _id: old._id });
    }
  }

  /** A stored projection as callers know it: `_id` is the record's id again (a number for numbered records). */
  static fromStored<S>(stored: Document): Current<S> {
    const { id, ...rest } = stored as StoredCurrent<S>;
    return { ...rest, _id: id ?? rest._id } as unknown as Current<S>;
  }

  /** The `_id` of the history entry that holds version `version` of record `id` (and its events). */
  static entryId(id: string | number, version: number): string {
    return `${id}:${version}`;
  }

  /** Creates version 1. Throws ConcurrentChangeError when the id is taken. */
  async create(id: string | number, state: S, facts: ChangeFacts, events: KnownEvent[] = []): Promise<Current<S>> {
    await this.insertEntry(id, 1, state, facts, events);
    const current = { ...state, _id: id, version: 1, createdAt: facts.at, updatedAt: facts.at } as Current<S>;
    await this.projections.replaceOne({ _id: keyOf(id) }, this.toStored(current), { upsert: true });
    return current;
  }

  /** Moves `record` (as read, at its version) to `next`. Throws ConcurrentChangeError if someone else moved it first. */
  async change(record: Current<S>, next: S, facts: ChangeFacts, events: KnownEvent[] = []): Promise<Current<S>> {
    const version = record.version + 1;
    try {
      await this.insertEntry(record._id, version, next, facts, events);
    } catch (error) {
      if (error instanceof ConcurrentChangeError) await this.rollForward(record._id);
      throw error;
    }
    const updated = { ...next, _id: record._id, version, createdAt: record.createdAt, updatedAt: facts.at } as Current<S>;
    await this.projections.replaceOne({ _id: keyOf(record._id), version: { $lt: version } }, this.toStored(updated));
    return updated;
  }

  /** The current state, rolled forward from history if a change was interrupted. */
  async load(id: string | number): Promise<Current<S> | null> {
    const stored = await this.projections.findOne({ _id: keyOf(id) });
    const current = stored ? VersionedStore.fromStored<S>(stored) : null;
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

  private async rollForward(id: string | number): Promise<void> {
    await this.load(id);
  }

  private async project(entry: HistoryEntry<S>, current: Current<S> | null): Promise<Current<S>> {
    const projected = {
      ...entry.state,
      _id: entry.entityId,
      version: entry.version,
      createdAt: current?.createdAt ?? entry.at,
      updatedAt: entry.at,
    } as Current<S>;
    await this.projections.replaceOne({ _id: keyOf(entry.entityId) }, this.toStored(projected), { upsert: true });
    return projected;
  }

  private toStored(current: Current<S>): KeyedDocument {
    return { ...current, _id: keyOf(current._id), id: current._id };
  }

  private async insertEntry(id: string | number, version: number, state: S, facts: ChangeFacts, events: KnownEvent[]): Promise<void> {
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
      outboxPending: events.length > 0,
    };
    try {
      await this.entries.insertOne(entry);
    } catch (error) {
      if ((error as { code?: unknown }).code === 11000) throw new ConcurrentChangeError(this.entity, id);
      throw error;
    }
  }
}
