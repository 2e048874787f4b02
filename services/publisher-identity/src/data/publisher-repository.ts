/**
 * Publisher platforms as a VersionedStore (docs/storage.md): `publishers` (the platforms, `_id` the platform
 * id; each change ONE version-guarded write of the new state with its audit facts and publisher.* events
 * pending, published as it is written or by the outbox relay) and `publisher_history` (the audit entry
 * `<id>:<version>` of each change). New ids come from the `counters` document `publishers` (IdCounter, one
 * `$inc`), unique across replicas. `publisher_counts` holds one document per
 * account counting its platforms (AccountCounts): a platform is created only after a guarded `$inc` below
 * the cap, which caps the platforms of an account exactly.
 */
import { randomUUID } from 'node:crypto';
import type { KnownEvent } from '@pilot/contracts';
import type { AuditNarrowing, ListOrder } from '@pilot/platform';
import {
  AccountCounts,
  auditConditions,
  IdCounter,
  modelOf,
  storedSchema,
  VersionedStore,
  type AccountCount,
  type ChangeFacts,
  type Connection,
  type Current,
  type CurrentPosition,
  type HistoryEntry,
  type HistoryPosition,
  type Model,
  type OutboxQueue,
  type VersionedStoreOptions,
  upsertRetried,
} from '@pilot/storage';
import type { Document, Filter } from 'mongodb';
import type { PublisherState, PublisherStatus } from '../domain/publisher';

export const PUBLISHER_ENTITY = 'publisher';

export type PublisherRecord = Current<PublisherState>;

/** The one `incarnation` document: the name of this database for the key read model. */
interface ReadModelIncarnation {
  _id: string;
  incarnation: string;
  at: Date;
}

/** What a page of the platform list is narrowed by (null: not narrowed). */
export interface PublisherListFilter {
  ownerAccountId: string | null;
  status: PublisherStatus | null;
  /** Matches a part of the link. */
  search: RegExp | null;
  /** Only these platforms (`_id` by `$in`, read from the `_id` index). */
  ids: number[] | null;
}

function listQuery(filter: PublisherListFilter): Document {
  const query: Document = {};
  if (filter.ids !== null) query._id = { $in: filter.ids };
  if (filter.ownerAccountId !== null) query.ownerAccountId = filter.ownerAccountId;
  if (filter.status !== null) query.status = filter.status;
  if (filter.search !== null) query.link = filter.search;
  return query;
}


const incarnationSchema = storedSchema<ReadModelIncarnation>({
  _id: { type: String, required: true },
  incarnation: { type: String, required: true },
  at: { type: Date, required: true },
});

export class PublisherRepository {
  private readonly store: VersionedStore<PublisherState>;
  private readonly ids: IdCounter;
  private readonly incarnations: Model<ReadModelIncarnation>;
  /** The owners' platform counts. */
  readonly counts: AccountCounts;

  /** `options.publish` publishes a change's events as it is written (without it they wait for the outbox relay). */
  constructor(connection: Connection, options: VersionedStoreOptions = {}) {
    if (!connection.db) throw new Error('MongoDB is not connected');
    this.store = new VersionedStore<PublisherState>(connection.db, PUBLISHER_ENTITY, 'publishers', 'publisher_history', options);
    this.ids = new IdCounter(connection.db, 'publishers', [{ collection: 'publisher_history', field: 'entityId' }]);
    this.incarnations = modelOf(connection, 'key_read_model', incarnationSchema);
    this.counts = new AccountCounts(connection.db.collection<AccountCount>('publisher_counts'), (ownerAccountId) => this.countOwned(ownerAccountId));
  }

  /**
   * The name of this database for the key read model: made once, on the first start against it, and the
   * same for every replica after (one upsert of `$setOnInsert`: the first one's value stays).
   */
  async readModelIncarnation(): Promise<string> {
    const stored = await upsertRetried(() =>
      this.incarnations
        .findOneAndUpdate({ _id: 'incarnation' }, { $setOnInsert: { incarnation: randomUUID(), at: new Date() } }, { upsert: true, new: true })
        .lean<ReadModelIncarnation>(),
    );
    if (!stored) throw new Error('key read model incarnation vanished');
    return stored.incarnation;
  }

  outboxQueues(): OutboxQueue[] {
    return [this.store.outbox()];
  }

  async ensureIndexes(): Promise<void> {
    await this.store.ensureIndexes();
    await this.store.createListIndexes();
  }

  /** How many platforms the account holds (its records, by the owner index). */
  countOwned(ownerAccountId: string): Promise<number> {
    return this.store.current.countDocuments({ ownerAccountId });
  }

  /** A new integer id, unique across replicas (one `$inc` of the counter). */
  nextId(): Promise<number> {
    return this.ids.next();
  }

  create(id: number, state: PublisherState, facts: ChangeFacts): Promise<PublisherRecord> {
    return this.store.create(id, state, facts);
  }

  /** Throws ConcurrentChangeError when another change of `record` won. */
  change(record: PublisherRecord, next: PublisherState, facts: ChangeFacts, events: KnownEvent[]): Promise<PublisherRecord> {
    return this.store.change(record, next, facts, events);
  }

  load(id: number): Promise<PublisherRecord | null> {
    return this.store.load(id);
  }

  /** Up to `count` platforms newest (or oldest) first, ties by id, after `after`; `ownerAccountId` null: the whole network. */
  async listPage(filter: PublisherListFilter, after: CurrentPosition | null, count: number, order: ListOrder = 'newest'): Promise<PublisherRecord[]> {
    return this.store.currentPage(listQuery(filter), after, count, order);
  }

  /** How many platforms the filter matches, up to `cap` (VersionedStore.countCurrent). */
  async countMatching(filter: PublisherListFilter, cap: number): Promise<{ count: number; capped: boolean }> {
    return this.store.countCurrent(listQuery(filter), cap);
  }

  /** Every current record, in batches in id order (for rebuilding the key read model). */
  batches(): AsyncGenerator<PublisherRecord[]> {
    return this.store.currentInBatches();
  }

  /** Up to `count` audit entries (history without events or states) in the audit's order, after `after`. */
  async history(filter: { ownerAccountId?: string; entityId?: number; narrowing: AuditNarrowing }, after: HistoryPosition | null, count: number): Promise<HistoryEntry<PublisherState>[]> {
    const query: Filter<HistoryEntry<PublisherState>> = auditConditions(filter.narrowing);
    if (filter.ownerAccountId !== undefined) query.ownerAccountId = filter.ownerAccountId;
    if (filter.entityId !== undefined) query.entityId = filter.entityId;
    return this.store.historyPage(query, after, count, { state: 0 });
  }

  /** Waits for the removals of the changes finished after their answers (VersionedStore.settled). */
  settled(): Promise<void> {
    return this.store.settled();
  }
}
