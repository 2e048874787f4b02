/**
 * The review-queue record of a campaign or platform, on real FerretDB: one upsert guarded by the version
 * per event, so events of one record handled at once by two replicas never fail and the newest one stays.
 */
import { connectMongo, type Connection } from '@pilot/storage';
import { testInfra } from '@pilot/testkit';
import { expect } from 'chai';
import { ReviewQueueRepository } from '../src/data/review-queue-repository';

describe('notification review queue records', () => {
  const infra = testInfra();
  const connections: Connection[] = [];
  const replica = async () => {
    const connection = await connectMongo({ url: infra.mongoUrl, dbName: `notification_review_queue_${infra.runId}` });
    connections.push(connection);
    return new ReviewQueueRepository(connection);
  };
  const stored = (key: string) => connections[0]!.db!.collection('notification_review_queue').findOne({ _id: key as never });

  after(async () => {
    await connections[0]?.db?.dropDatabase();
    for (const connection of connections) await connection.close();
  });

  it('takes events of one new record handled at once on two replicas without failing, keeping the newest', async () => {
    const [one, two] = [await replica(), await replica()];
    await one.ensureIndexes();
    const at = new Date('2026-06-01T12:00:00Z');
    for (const round of [1, 2, 3]) {
      const key = `campaign:${round}`;
      await Promise.all(Array.from({ length: 8 }, (_, index) => (index % 2 === 0 ? one : two).observe(key, index % 2 === 1, index + 1, at)));
      expect(await stored(key)).to.deep.include({ version: 8, waiting: true });
    }
  });

  it('changes nothing for an event as old as or older than the one kept', async () => {
    const queue = await replica();
    const at = new Date('2026-06-01T12:00:00Z');
    const waitingBefore = await queue.waitingCount();
    await queue.observe('publisher:9', true, 5, at);
    await queue.observe('publisher:9', false, 4, at);
    await queue.observe('publisher:9', false, 5, at);
    expect(await stored('publisher:9')).to.deep.include({ version: 5, waiting: true });
    expect(await queue.waitingCount()).to.equal(waitingBefore + 1);
    await queue.observe('publisher:9', false, 6, at);
    expect(await stored('publisher:9')).to.deep.include({ version: 6, waiting: false });
  });
});
