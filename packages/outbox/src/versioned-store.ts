/**
 * Records whose every change is an immutable, numbered history entry (docs/decisions/0002).
 *
 * A change from version v inserts history entry `<id>:<v+1>` carrying the new state, the audit facts
 * (actor, action, from, to, reason) and the events to publish, in ONE insert. The unique `_id` makes the
 * change exclusive even on FerretDB, which has no atomic conditional update: of two concurrent changes from
 * the same version exactly one is inserted; the other gets ConcurrentChangeError. The `current` document
 * is a projection of the newest entry for fast reads; if a process dies between the two writes, the next
 * change (or read through `load`) rolls the projection forward from history.
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

export class VersionedStore<S extends { ownerAccountId: string }> {
  readonly current: Collection<Document>;
  readonly history: Collection<Document>;

  constructor(
    db: Db,
    readonly entity: string,
    currentCollection: string,
    historyCollection: string,
  ) {
    this.current = db.collection(currentCollection);
    this.history = db.collection(historyCollection);
  }

  async ensureIndexes(): Promise<void> {
    await this.history.createIndex({ entityId: 1, version: -1 });
    await this.history.createIndex({ outboxPending: 1 });
    await this.history.createIndex({ ownerAccountId: 1, at: -1 });
    await this.history.createIndex({ at: -1 });
  }

  /** The `_id` of the history entry that holds version `version` of record `id` (and its events). */
  static entryId(id: string | number, version: number): string {
    return `${id}:${version}`;
  }

  /** Creates version 1. Throws ConcurrentChangeError when the id is taken. */
  async create(id: string | number, state: S, facts: ChangeFacts, events: KnownEvent[] = []): Promise<Current<S>> {
    await this.insertEntry(id, 1, state, facts, events);
    const current = { ...state, _id: id, version: 1, createdAt: facts.at, updatedAt: facts.at } as Current<S>;
    await this.current.replaceOne({ _id: id } as never, current, { upsert: true });
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
    await this.current.replaceOne({ _id: record._id, version: { $lt: version } } as never, updated);
    return updated;
  }

  /** The current state, rolled forward from history if a change was interrupted. */
  async load(id: string | number): Promise<Current<S> | null> {
    const current = (await this.current.findOne({ _id: id } as never)) as Current<S> | null;
    const [latest] = (await this.history.find({ entityId: id }).sort({ version: -1 }).limit(1).toArray()) as unknown as HistoryEntry<S>[];
    if (!latest) return current;
    if (current && current.version >= latest.version) return current;
    return this.project(latest, current);
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
    await this.current.replaceOne({ _id: entry.entityId } as never, projected, { upsert: true });
    return projected;
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
      await this.history.insertOne(entry as never);
    } catch (error) {
      if ((error as { code?: unknown }).code === 11000) throw new ConcurrentChangeError(this.entity, id);
      throw error;
    }
  }
}
