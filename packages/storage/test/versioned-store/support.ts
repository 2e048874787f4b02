import { CAMPAIGN_ACTIVATED, CAMPAIGN_SUBMITTED, createEnvelope, type CampaignEvent, type CampaignState } from '@pilot/contracts';
import type { Db, Document } from 'mongodb';
import type { ChangeFacts, HistoryEntry, VersionedStore } from '../../src';

export type Campaign = CampaignState;

export function campaign(campaignId: number, status: CampaignState['status'] = 'submitted'): Campaign {
  return {
    campaignId,
    ownerAccountId: '501',
    status,
    format: 'bot',
    language: 'en',
    title: 'Title',
    text: 'Text',
    buttonText: 'Open',
    imageUrl: null,
    destinationUrl: 'https://example.org',
  };
}

export function campaignEvent(state: Campaign, version: number): CampaignEvent {
  const type = state.status === 'active' ? CAMPAIGN_ACTIVATED : CAMPAIGN_SUBMITTED;
  return createEnvelope(type, String(state.campaignId), version, state) as CampaignEvent;
}

export function facts(action: string, from: string | null, to: string | null, at = new Date('2026-02-01T10:00:00.000Z')): ChangeFacts {
  return { at, actorAccountId: '501', action, from, to };
}

/**
 * Whether entry `entryId` of `store` is still unfinished (its events may not be on the bus yet). It takes
 * only the store's history, so the relay's tests in @pilot/messaging, whose stores come from the built
 * `@pilot/storage`, share these helpers with the store's own tests.
 */
export async function isPending(store: Pick<VersionedStore<Campaign>, 'history'>, entryId: string): Promise<boolean> {
  const entry = await store.history.findOne({ _id: entryId }, { projection: { pendingSince: 1 } });
  if (!entry) throw new Error(`no entry ${entryId}`);
  return entry.pendingSince !== undefined;
}

/** The stored projection of record `id` in the store's current collection `current`. */
export function projectionOf(db: Db, current: string, id: number): Promise<Document | null> {
  return db.collection(current).findOne({ _id: id as never });
}

/** A history entry as another writer, or a process that died right after inserting it, left it: pending, no projection. */
export function entryOf(state: Campaign, version: number, changeFacts: ChangeFacts): HistoryEntry<Campaign> {
  return {
    _id: `${state.campaignId}:${version}`,
    entity: 'campaign',
    entityId: state.campaignId,
    version,
    ownerAccountId: state.ownerAccountId,
    ...changeFacts,
    reason: null,
    state,
    outbox: [campaignEvent(state, version)],
    pendingSince: changeFacts.at,
  };
}
