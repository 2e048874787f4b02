/**
 * Everything the campaign service stores, and the only code that touches the driver (docs/storage.md).
 *
 * - `campaigns` (the campaigns, `_id` the campaign id, each changed by one version-guarded write that also
 *   holds its pending events: the outbox) and `campaign_history` (one immutable audit entry per change),
 *   through @pilot/storage's VersionedStore.
 * - `counters` (`_id: 'campaigns'`): the last campaign id handed out, one `$inc` a create (IdCounter), so
 *   ids are unique across replicas and never reused.
 * - `campaign_counts`: one document per account counting its campaign records (AccountCounts): a create
 *   takes one by a guarded `$inc` below the cap, or is refused.
 */
import {
  AccountCounts,
  auditConditions,
  IdCounter,
  VersionedStore,
  type ChangeFacts,
  type Connection,
  type Current,
  type CurrentPosition,
  type HistoryEntry,
  type HistoryPosition,
  type AccountCount,
  type OutboxQueue,
  type VersionedStoreOptions,
  type Written,
} from '@pilot/storage';
import type { KnownEvent } from '@pilot/contracts';
import type { AuditNarrowing, ListOrder } from '@pilot/platform';
import type { Document, Filter } from 'mongodb';
import type { CampaignRecord, CampaignStatus } from '../domain/campaign';

export type StoredCampaign = Current<CampaignRecord>;
export type CampaignHistoryEntry = HistoryEntry<CampaignRecord>;

/** What a page of the campaign list is narrowed by (null: not narrowed). */
export interface CampaignListFilter {
  ownerAccountId: string | null;
  status: CampaignStatus | null;
  /** Matches a part of the name or the title. */
  search: RegExp | null;
  /** Only these campaigns (`_id` by `$in`, read from the `_id` index). */
  ids: number[] | null;
}

function listQuery(filter: CampaignListFilter): Document {
  const query: Document = {};
  if (filter.ids !== null) query._id = { $in: filter.ids };
  if (filter.ownerAccountId !== null) query.ownerAccountId = filter.ownerAccountId;
  if (filter.status !== null) query.status = filter.status;
  if (filter.search !== null) query.$or = [{ name: filter.search }, { title: filter.search }];
  return query;
}

export class CampaignRepository {
  private readonly store: VersionedStore<CampaignRecord>;
  private readonly ids: IdCounter;
  private readonly counts: AccountCounts;

  /** `options.publish` publishes a change's events as it is written (without it they wait for the outbox relay). */
  constructor(
    private readonly connection: Connection,
    options: VersionedStoreOptions = {},
  ) {
    if (!connection.db) throw new Error('MongoDB is not connected');
    this.store = new VersionedStore<CampaignRecord>(connection.db, 'campaign', 'campaigns', 'campaign_history', options);
    this.ids = new IdCounter(connection.db, 'campaigns', [{ collection: 'campaign_history', field: 'entityId' }]);
    this.counts = new AccountCounts(connection.db.collection<AccountCount>('campaign_counts'), (ownerAccountId) => this.store.current.countDocuments({ ownerAccountId }));
  }

  async ensureIndexes(): Promise<void> {
    await this.store.ensureIndexes();
    await this.store.createListIndexes();
  }

  /** Where the events of campaign changes wait for the outbox relay. */
  outbox(): OutboxQueue {
    return this.store.outbox();
  }

  outboxQueues(): OutboxQueue[] {
    return [this.outbox()];
  }

  /**
   * Takes one of the account's `max` records for a create (AccountCounts.take); false when it holds them
   * all. Counts of creates that died before their record, taken before `leakedBefore`, are given back.
   */
  takeRecordCount(accountId: string, max: number, at: Date, leakedBefore: Date): Promise<boolean> {
    return this.counts.take(accountId, max, at, leakedBefore);
  }

  /** Gives back a count whose record was never written. */
  giveBackRecordCount(accountId: string): Promise<void> {
    return this.counts.giveBack(accountId);
  }

  /** A new campaign id: a positive integer no replica has handed out before. */
  nextId(): Promise<number> {
    return this.ids.next();
  }

  async create(record: CampaignRecord, facts: ChangeFacts): Promise<StoredCampaign> {
    return this.store.create(record.campaignId, record, facts);
  }

  async load(campaignId: number): Promise<StoredCampaign | null> {
    return this.store.load(campaignId);
  }

  /** Records the change (one guarded write); its events are published beside its history insert (`published`: on the bus). */
  async change(current: StoredCampaign, next: CampaignRecord, facts: ChangeFacts, events: KnownEvent[]): Promise<Written<CampaignRecord>> {
    return this.store.changeAndPublish(current, next, facts, events);
  }

  /** Up to `count` campaigns newest (or oldest) first, ties by id, after `after`; `ownerAccountId` null: the whole network. */
  async listPage(filter: CampaignListFilter, after: CurrentPosition | null, count: number, order: ListOrder = 'newest'): Promise<StoredCampaign[]> {
    return this.store.currentPage(listQuery(filter), after, count, order);
  }

  /** How many campaigns the filter matches, up to `cap` (VersionedStore.countCurrent). */
  async countMatching(filter: CampaignListFilter, cap: number): Promise<{ count: number; capped: boolean }> {
    return this.store.countCurrent(listQuery(filter), cap);
  }

  /** The language and format of these campaigns (never changed once created), from the `_id` index. */
  async traitsOf(ids: number[]): Promise<Array<Pick<StoredCampaign, 'campaignId' | 'language' | 'format'>>> {
    return this.store.findCurrent({ _id: { $in: ids } } as Document, { projection: { campaignId: 1, language: 1, format: 1 } });
  }

  /** Every campaign in one status, for the snapshot of the campaign caches. */
  async listInStatus(status: CampaignStatus): Promise<StoredCampaign[]> {
    return this.store.findCurrent({ status }, { sort: { _id: 1 } });
  }

  /** Up to `count` audit entries in the audit's order after `after`; `ownerAccountId` null for an administrator. */
  async audit(filter: { ownerAccountId: string | null; campaignId: number | null; narrowing: AuditNarrowing }, after: HistoryPosition | null, count: number): Promise<CampaignHistoryEntry[]> {
    const query: Filter<CampaignHistoryEntry> = auditConditions(filter.narrowing);
    if (filter.ownerAccountId !== null) query.ownerAccountId = filter.ownerAccountId;
    if (filter.campaignId !== null) query.entityId = filter.campaignId;
    return this.store.historyPage(query, after, count, { state: 0 });
  }

  /** Waits for the removals of the changes finished after their answers (VersionedStore.settled). */
  settled(): Promise<void> {
    return this.store.settled();
  }

  async ping(): Promise<void> {
    if (!this.connection.db) throw new Error('MongoDB is not connected');
    await this.connection.db.admin().command({ ping: 1 });
  }
}
