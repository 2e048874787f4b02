/**
 * Slots and their placements, as a VersionedStore keyed by slot (docs/storage.md):
 * `slots` holds each slot's current placement (`_id` the slot, what public reads load), changed by ONE
 * version-guarded write a PUT that also holds the audit facts and the placement.changed event until they
 * are written and published (by the writer, or by the outbox relay), and `placement_history` one audit
 * entry `<slot>:<version>` per PUT.
 */
import type { AuditNarrowing } from '@pilot/platform';
import {
  auditConditions,
  ConcurrentChangeError,
  VersionedStore,
  type ChangeFacts,
  type Connection,
  type Current,
  type HistoryEntry,
  type HistoryPosition,
  type OutboxQueue,
  type VersionedStoreOptions,
} from '@pilot/storage';
import type { KnownEvent } from '@pilot/contracts';
import type { Filter } from 'mongodb';
import type { Placement } from '../domain/placement';
import type { Slot } from '../domain/slots';

export const PLACEMENT_ENTITY = 'placement';

export interface SlotState {
  /** The administrator who set the current placement (placements are administrator-owned). */
  ownerAccountId: string;
  placement: Placement;
}

export type SlotRecord = Current<SlotState>;

const MAX_ATTEMPTS = 8;

export class PlacementRepository {
  private readonly store: VersionedStore<SlotState>;

  /** `options.publish` publishes a change's events as it is written (without it they wait for the outbox relay). */
  constructor(connection: Connection, options: VersionedStoreOptions = {}) {
    if (!connection.db) throw new Error('MongoDB is not connected');
    this.store = new VersionedStore<SlotState>(connection.db, PLACEMENT_ENTITY, 'slots', 'placement_history', options);
  }

  /** Where the placement.changed events wait for the outbox relay. */
  outboxQueues(): OutboxQueue[] {
    return [this.store.outbox()];
  }

  async ensureIndexes(): Promise<void> {
    await this.store.ensureIndexes();
    await this.store.history.createIndex({ 'state.placement.placementId': 1 });
  }

  async currentOf(slot: Slot): Promise<SlotRecord | null> {
    return this.store.load(slot);
  }

  /**
   * Makes `placement` the slot's current one. A PUT is a replacement, so a concurrent change is not an
   * error: the loser reloads and writes on top (the version-guarded write keeps versions exclusive).
   */
  async replace(slot: Slot, placement: Placement, facts: Omit<ChangeFacts, 'from' | 'to'>, eventsFor: (version: number) => KnownEvent[]): Promise<SlotRecord> {
    const next: SlotState = { ownerAccountId: facts.actorAccountId, placement };
    for (let attempt = 1; ; attempt += 1) {
      const record = await this.store.load(slot);
      const change: ChangeFacts = { ...facts, from: record?.placement.status ?? null, to: placement.status };
      try {
        if (!record) return await this.store.create(slot, next, change, eventsFor(1));
        return await this.store.change(record, next, change, eventsFor(VersionedStore.nextVersion(record)));
      } catch (error) {
        if (!(error instanceof ConcurrentChangeError) || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }

  /** Up to `count` history entries in the audit's order after `after`, optionally of one slot or one placementId. */
  async history(entityId: string | undefined, narrowing: AuditNarrowing, after: HistoryPosition | null, count: number): Promise<HistoryEntry<SlotState>[]> {
    const filter: Filter<HistoryEntry<SlotState>> = auditConditions(narrowing);
    if (entityId !== undefined) filter.$or = [{ entityId }, { 'state.placement.placementId': entityId }];
    return this.store.historyPage(filter, after, count);
  }

  /** Waits for the removals of the changes finished after their answers (VersionedStore.settled). */
  settled(): Promise<void> {
    return this.store.settled();
  }
}
