import { CAMPAIGN_ACTIVATED, CAMPAIGN_SUBMITTED, createEnvelope, type CampaignEvent, type CampaignState } from '@pilot/contracts';
import type { Db, Document } from 'mongodb';
import { projectionCollectionName, type ChangeFacts, type VersionedStore } from '../src';

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

/** Whether entry `entryId` of `store` is still marked pending (its events may not be on the bus yet). */
export async function isMarkedPending(store: VersionedStore<Campaign>, entryId: string): Promise<boolean> {
  return (await store.outbox().pending.countDocuments({ _id: entryId as never })) > 0;
}

/** The stored projection of record `id` in the collection that holds it (`base` is the store's current collection). */
export function projectionOf(db: Db, base: string, id: number): Promise<Document | null> {
  return db.collection(projectionCollectionName(base, String(id))).findOne({ _id: String(id) as never });
}
