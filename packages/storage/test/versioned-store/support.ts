import { CAMPAIGN_ACTIVATED, CAMPAIGN_SUBMITTED, createEnvelope, type CampaignEvent, type CampaignState } from '@pilot/contracts';
import type { Db, Document } from 'mongodb';
import type { ChangeFacts, Current, VersionedStore } from '../../src';

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
 * Whether the change `entryId` (`<id>:<version>`) of `store` is still unfinished: its record's document
 * holds it pending. It takes only the store's records, so the relay's tests in @pilot/messaging, whose
 * stores come from the built `@pilot/storage`, share these helpers with the store's own tests.
 */
export async function isPending(store: Pick<VersionedStore<Campaign>, 'current'>, entryId: string): Promise<boolean> {
  const [id, version] = entryId.split(':').map(Number) as [number, number];
  const record = (await store.current.findOne({ _id: id }, { projection: { pending: 1, version: 1 } })) as Document | null;
  if (!record || (record.version as number) < version) throw new Error(`no change ${entryId}`);
  return ((record.pending ?? []) as Array<{ version: number }>).some((change) => change.version === version);
}

/** The stored document of record `id` in the store's collection `current`. */
export function projectionOf(db: Db, current: string, id: number): Promise<Document | null> {
  return db.collection(current).findOne({ _id: id as never });
}

/**
 * The guarded write of a change whose writer died right after it (before its history entry and its
 * publish): the document at the next version, with the change pending.
 */
export async function writtenByDeadWriter(store: Pick<VersionedStore<Campaign>, 'current'>, record: Current<Campaign>, next: Campaign, changeFacts: ChangeFacts): Promise<void> {
  const version = record.version + 1;
  const change = { version, ...changeFacts, reason: changeFacts.reason ?? null, state: next, events: [campaignEvent(next, version)] };
  const { matchedCount } = await store.current.updateOne({ _id: record._id, version: record.version }, {
    $set: { ...next, version, updatedAt: changeFacts.at },
    $push: { pending: change },
    $min: { pendingSince: changeFacts.at },
  } as never);
  if (matchedCount !== 1) throw new Error(`record ${record._id} is not at version ${record.version}`);
}
