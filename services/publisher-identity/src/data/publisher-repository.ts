/**
 * Publisher platforms as a VersionedStore (docs/storage.md): `publishers` (the current
 * platforms, `_id` the platform id) and `publisher_history` (each change's entry `<id>:<version>` holding the
 * new state, the audit facts and the publisher.* events in ONE insert, published as it is written or by the
 * outbox relay). New ids come from `publisher_ids` (NextIds), unique across replicas. `publisher_slots` holds
 * `<account>:<slot>` claims (AccountSlots): a platform is created only under a free slot of its owner, which
 * caps the platforms of an account exactly.
 */
import { randomUUID } from 'node:crypto';
import type { KnownEvent } from '@pilot/contracts';
import {
  AccountSlots,
  claimOnce,
  createDeclaredIndexes,
  modelOf,
  NextIds,
  slotClaimSchema,
  storedSchema,
  VersionedStore,
  type ChangeFacts,
  type Connection,
  type Current,
  type CurrentPosition,
  type HistoryEntry,
  type HistoryPosition,
  type Model,
  type OutboxQueue,
  type SlotClaim,
  type VersionedStoreOptions,
} from '@pilot/storage';
import type { Collection, Document, Filter } from 'mongodb';
import type { PublisherState, PublisherStatus } from '../domain/publisher';

export const PUBLISHER_ENTITY = 'publisher';

export type PublisherRecord = Current<PublisherState>;

/** One document per publisher id ever handed out (insertWithNextId). */
interface PublisherId {
  _id: number;
  ownerAccountId: string;
  at: Date;
}

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
}


const idSchema = storedSchema<PublisherId>({ _id: { type: Number, required: true }, ownerAccountId: { type: String, required: true }, at: { type: Date, required: true } });
const incarnationSchema = storedSchema<ReadModelIncarnation>({
  _id: { type: String, required: true },
  incarnation: { type: String, required: true },
  at: { type: Date, required: true },
});

export class PublisherRepository {
  private readonly store: VersionedStore<PublisherState>;
  private readonly leases: Collection;
  private readonly ids: NextIds<PublisherId>;
  private readonly incarnations: Model<ReadModelIncarnation>;
  private readonly slotClaims: Model<SlotClaim>;
  /** The owners' platform slots. */
  readonly slots: AccountSlots;

  /** `options.publish` publishes a change's events as it is written (without it they wait for the outbox relay). */
  constructor(connection: Connection, options: VersionedStoreOptions = {}) {
    if (!connection.db) throw new Error('MongoDB is not connected');
    this.store = new VersionedStore<PublisherState>(connection.db, PUBLISHER_ENTITY, 'publishers', 'publisher_history', options);
    this.leases = connection.db.collection('publisher_outbox_leases');
    this.ids = new NextIds(modelOf(connection, 'publisher_ids', idSchema));
    this.incarnations = modelOf(connection, 'key_read_model', incarnationSchema);
    this.slotClaims = modelOf(connection, 'publisher_slots', slotClaimSchema);
    this.slots = new AccountSlots(this.slotClaims);
  }

  /**
   * The name of this database for the key read model: made once, on the first start against it, and the
   * same for every replica after (the unique `_id` decides between replicas starting together).
   */
  async readModelIncarnation(): Promise<string> {
    await claimOnce(this.incarnations, 'incarnation', { incarnation: randomUUID(), at: new Date() });
    const stored = await this.incarnations.findOne({ _id: 'incarnation' }).lean<ReadModelIncarnation>();
    if (!stored) throw new Error('key read model incarnation vanished');
    return stored.incarnation;
  }

  /** Publishing leases of the outbox relay, so two replicas do not publish the same pending events. */
  outboxLeases(): Collection {
    return this.leases;
  }

  outboxQueues(): OutboxQueue[] {
    return [this.store.outbox()];
  }

  async ensureIndexes(): Promise<void> {
    await this.store.ensureIndexes();
    await this.store.createListIndexes();
    await createDeclaredIndexes(this.slotClaims);
  }

  /** How many platforms the account holds (its records, by the owner index). */
  async countOwned(ownerAccountId: string): Promise<number> {
    return (await this.store.findCurrent({ ownerAccountId }, { projection: { _id: 1 } })).length;
  }

  /** A new integer id, unique across replicas (the unique `_id` of `publisher_ids` decides). */
  nextId(ownerAccountId: string, at: Date): Promise<number> {
    return this.ids.insert(() => ({ ownerAccountId, at }));
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

  /** The projection alone (VersionedStore.loadProjection), for reads. */
  loadProjection(id: number): Promise<PublisherRecord | null> {
    return this.store.loadProjection(id);
  }

  /** Up to `count` platforms newest first (ties by id), after `after`; `ownerAccountId` null: the whole network. */
  async listPage(filter: PublisherListFilter, after: CurrentPosition | null, count: number): Promise<PublisherRecord[]> {
    const query: Document = {};
    if (filter.ownerAccountId !== null) query.ownerAccountId = filter.ownerAccountId;
    if (filter.status !== null) query.status = filter.status;
    if (filter.search !== null) query.link = filter.search;
    return this.store.currentPage(query, after, count);
  }

  /** Every current record, in batches in id order (for rebuilding the key read model). */
  batches(): AsyncGenerator<PublisherRecord[]> {
    return this.store.currentInBatches();
  }

  /** Up to `count` audit entries (history without events or states) in the audit's order, after `after`. */
  async history(filter: { ownerAccountId?: string; entityId?: number }, after: HistoryPosition | null, count: number): Promise<HistoryEntry<PublisherState>[]> {
    const query: Filter<HistoryEntry<PublisherState>> = {};
    if (filter.ownerAccountId !== undefined) query.ownerAccountId = filter.ownerAccountId;
    if (filter.entityId !== undefined) query.entityId = filter.entityId;
    return this.store.historyPage(query, after, count, { state: 0 });
  }

  /** Waits for the finishes of the changes answered so far (VersionedStore.settled). */
  settled(): Promise<void> {
    return this.store.settled();
  }
}
