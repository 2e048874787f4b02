/**
 * Everything the campaign service stores, and the only code that touches the driver (docs/storage.md).
 *
 * - `campaigns` (the campaigns, `_id` the campaign id, each changed by one version-guarded write that also
 *   holds its pending events: the outbox) and `campaign_history` (one immutable audit entry per change),
 *   through @pilot/storage's VersionedStore.
 * - `counters` (`_id: 'campaigns'`): the last campaign id handed out, one `$inc` a create (IdCounter), so
 *   ids are unique across replicas and never reused.
 * - `campaign_slots`: `<account>:<slot>` claims, slot 1..100; inserting a free slot is the permission to
 *   create a record. Records are never deleted; a claim is released only when its
 *   record was never written (a failed create, or a process that died in between: releaseLeakedSlots).
 */
import {
  AccountSlots,
  createDeclaredIndexes,
  IdCounter,
  modelOf,
  slotClaimSchema,
  VersionedStore,
  wholeModelScan,
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
  type Written,
} from '@pilot/storage';
import type { KnownEvent } from '@pilot/contracts';
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
}

export class CampaignRepository {
  private readonly store: VersionedStore<CampaignRecord>;
  private readonly ids: IdCounter;
  private readonly slots: Model<SlotClaim>;
  private readonly accountSlots: AccountSlots;

  /** `options.publish` publishes a change's events as it is written (without it they wait for the outbox relay). */
  constructor(
    private readonly connection: Connection,
    options: VersionedStoreOptions = {},
  ) {
    if (!connection.db) throw new Error('MongoDB is not connected');
    this.store = new VersionedStore<CampaignRecord>(connection.db, 'campaign', 'campaigns', 'campaign_history', options);
    this.ids = new IdCounter(connection.db, 'campaigns', [{ collection: 'campaign_history', field: 'entityId' }]);
    this.slots = modelOf(connection, 'campaign_slots', slotClaimSchema);
    this.accountSlots = new AccountSlots(this.slots);
  }

  async ensureIndexes(): Promise<void> {
    await this.store.ensureIndexes();
    await this.store.createListIndexes();
    await createDeclaredIndexes(this.slots);
  }

  /** Where the events of campaign changes wait for the outbox relay. */
  outbox(): OutboxQueue {
    return this.store.outbox();
  }

  outboxQueues(): OutboxQueue[] {
    return [this.outbox()];
  }

  /** Claims a free slot 1..max for the account (AccountSlots.claim); null when all are taken. */
  claimSlot(accountId: string, max: number, at: Date): Promise<number | null> {
    return this.accountSlots.claim(accountId, max, at);
  }

  /** Gives back a claim whose record was never written. */
  releaseSlot(accountId: string, slot: number): Promise<void> {
    return this.accountSlots.release(accountId, slot);
  }

  /**
   * Releases the claims that a process which died between claim and record left: per account, the claims
   * beyond its number of records, highest slots first, only among those claimed before `claimedBefore` (a
   * create under way holds its claim for milliseconds). The number released.
   */
  async releaseLeakedSlots(claimedBefore: Date): Promise<number> {
    const records = new Map<string, number>();
    for (const projection of await this.store.findCurrent({}, { projection: { ownerAccountId: 1 } })) {
      const owner = String(projection.ownerAccountId);
      records.set(owner, (records.get(owner) ?? 0) + 1);
    }
    const claims = new Map<string, Array<{ slot: number; at: Date }>>();
    for await (const claim of this.slots.find({}, { accountId: 1, slot: 1, at: 1 }, wholeModelScan(this.slots)).lean<SlotClaim>().cursor()) {
      claims.set(claim.accountId, [...(claims.get(claim.accountId) ?? []), { slot: claim.slot, at: claim.at }]);
    }
    let released = 0;
    for (const [account, held] of claims) {
      const excess = held.length - (records.get(account) ?? 0);
      if (excess <= 0) continue;
      const stale = held.filter((claim) => claim.at < claimedBefore).sort((a, b) => b.slot - a.slot);
      for (const claim of stale.slice(0, excess)) {
        await this.releaseSlot(account, claim.slot);
        released += 1;
      }
    }
    return released;
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

  /** Up to `count` campaigns newest first (ties by id), after `after`; `ownerAccountId` null: the whole network. */
  async listPage(filter: CampaignListFilter, after: CurrentPosition | null, count: number): Promise<StoredCampaign[]> {
    const query: Document = {};
    if (filter.ownerAccountId !== null) query.ownerAccountId = filter.ownerAccountId;
    if (filter.status !== null) query.status = filter.status;
    if (filter.search !== null) query.$or = [{ name: filter.search }, { title: filter.search }];
    return this.store.currentPage(query, after, count);
  }

  /** Every campaign in one status, for the snapshot of the campaign caches. */
  async listInStatus(status: CampaignStatus): Promise<StoredCampaign[]> {
    return this.store.findCurrent({ status }, { sort: { _id: 1 } });
  }

  /** Up to `count` audit entries in the audit's order after `after`; `ownerAccountId` null for an administrator. */
  async audit(filter: { ownerAccountId: string | null; campaignId: number | null }, after: HistoryPosition | null, count: number): Promise<CampaignHistoryEntry[]> {
    const query: Filter<CampaignHistoryEntry> = {};
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
