/**
 * Storage figures of the benchmark: collections in every service's database, and the writes
 * one campaign transition makes, counted by command monitoring on the store the campaign service uses (its
 * VersionedStore with a publisher, as `services/campaign/src/start.ts` builds it).
 */
import { createEnvelope, type CampaignState } from '@pilot/contracts';
import { MongoClient } from 'mongodb';
import { VersionedStore } from '../../packages/storage/src';

/** Collections per database of the given names (a database that does not exist counts 0). */
export async function collectionsPerDatabase(mongoUrl: string, databases: string[]): Promise<Record<string, number>> {
  const client = await MongoClient.connect(mongoUrl, { retryWrites: false });
  try {
    const counts: Record<string, number> = {};
    for (const name of databases) counts[name] = (await client.db(name).listCollections({}, { nameOnly: true }).toArray()).length;
    return counts;
  } finally {
    await client.close();
  }
}

const WRITE_COMMANDS = new Set(['insert', 'update', 'delete', 'findAndModify']);

/** Write commands per transition over the four transitions of a campaign's life (submit, approve, activate, pause). */
export async function writesPerCampaignTransition(mongoUrl: string, dbName: string): Promise<number> {
  const client = await MongoClient.connect(mongoUrl, { retryWrites: false, monitorCommands: true });
  let writes = 0;
  client.on('commandStarted', (started) => {
    if (WRITE_COMMANDS.has(started.commandName)) writes += 1;
  });
  const db = client.db(dbName);
  try {
    const store = new VersionedStore<CampaignState>(db, 'campaign', 'campaigns', 'campaign_history', { publish: async () => undefined });
    await store.ensureIndexes();
    const draft: CampaignState = {
      campaignId: 1,
      ownerAccountId: '7',
      status: 'draft',
      format: 'bot',
      language: 'en',
      title: 'Title',
      text: 'Text',
      buttonText: 'Open',
      imageUrl: null,
      destinationUrl: 'https://advertiser.example/',
    };
    let record = await store.create(1, draft, { at: new Date(), actorAccountId: '7', action: 'created', from: null, to: 'draft' });
    writes = 0;
    const moves = [
      ['submitted', 'campaign.submitted'],
      ['approved', 'campaign.approved'],
      ['active', 'campaign.activated'],
      ['paused', 'campaign.paused'],
    ] as const;
    for (const [status, type] of moves) {
      const next = { ...draft, status };
      const event = createEnvelope(type, '1', record.version + 1, next);
      record = await store.change(record, next, { at: new Date(), actorAccountId: '1', action: status, from: record.status, to: status }, [event]);
    }
    await store.settled(); // the finishes after the answers count too
    return writes / moves.length;
  } finally {
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  }
}
