/**
 * Storage figures of the benchmark: collections in every service's database, and the store commands one
 * campaign transition makes (its read and its guarded write on the answer path; its history insert and the
 * removal of its finished change after the answer), counted by command monitoring on the store the campaign service uses (its
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

const STORE_COMMANDS = new Set(['find', 'insert', 'update', 'delete', 'findAndModify']);
const WRITE_COMMANDS = new Set(['insert', 'update', 'delete', 'findAndModify']);

/** Store commands of a campaign transition: on the answer path, in all, and the writes among them in all. */
export interface TransitionCommands {
  answerPath: number;
  all: number;
  writes: number;
}

/**
 * Store commands per transition over the four transitions of a campaign's life (submit, approve, activate,
 * pause), each made as the service makes it: a read of the campaign, then the change.
 */
export async function commandsPerCampaignTransition(mongoUrl: string, dbName: string): Promise<TransitionCommands> {
  const client = await MongoClient.connect(mongoUrl, { retryWrites: false, monitorCommands: true });
  const counted = { commands: 0, writes: 0 };
  client.on('commandStarted', (started) => {
    if (STORE_COMMANDS.has(started.commandName)) counted.commands += 1;
    if (WRITE_COMMANDS.has(started.commandName)) counted.writes += 1;
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
    await store.create(1, draft, { at: new Date(), actorAccountId: '7', action: 'created', from: null, to: 'draft' });
    await store.settled();
    const moves = [
      ['submitted', 'campaign.submitted'],
      ['approved', 'campaign.approved'],
      ['active', 'campaign.activated'],
      ['paused', 'campaign.paused'],
    ] as const;
    let answerPath = 0;
    counted.commands = 0;
    counted.writes = 0;
    for (const [status, type] of moves) {
      const before = counted.commands;
      const record = await store.load(1);
      if (!record) throw new Error('campaign 1 vanished');
      const next = { ...draft, status };
      const event = createEnvelope(type, '1', record.version + 1, next);
      await store.change(record, next, { at: new Date(), actorAccountId: '1', action: status, from: record.status, to: status }, [event]);
      answerPath += counted.commands - before;
      await store.settled(); // the removal after the answer counts in all
    }
    return { answerPath: answerPath / moves.length, all: counted.commands / moves.length, writes: counted.writes / moves.length };
  } finally {
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  }
}
