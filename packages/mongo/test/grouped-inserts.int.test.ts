import { ServiceUnavailableError } from '@pilot/faults';
import { TcpRelay, testInfra } from '@pilot/testkit';
import { expect } from 'chai';
import type { Collection } from 'mongodb';
import { connectMongo, GroupedInserts, type Connection } from '../src';

interface Fact {
  _id: string;
  n: number;
}

/** Counts the insertMany calls that reach the real collection. */
function countingInsertMany(collection: Collection<Fact>): { calls: number[] } {
  const seen = { calls: [] as number[] };
  const original = collection.insertMany.bind(collection);
  collection.insertMany = ((documents: Fact[], options?: object) => {
    seen.calls.push(documents.length);
    return original(documents, options);
  }) as typeof collection.insertMany;
  return seen;
}

describe('GroupedInserts (real MongoDB-compatible server, MONGO_URL)', () => {
  const infra = testInfra();
  const dbName = `mongo_grouped_${infra.runId}`;
  let connection: Connection;
  const relay = new TcpRelay(infra.mongoUrl);

  before(async () => {
    connection = await connectMongo({ url: infra.mongoUrl, dbName });
  });

  after(async () => {
    await connection.dropDatabase().catch(() => undefined);
    await connection.close().catch(() => undefined);
    await relay.cut();
  });

  const collectionNamed = (name: string) => {
    if (!connection.db) throw new Error('not connected');
    return connection.db.collection<Fact>(name);
  };

  it('writes 300 concurrent inserts in far fewer round trips, each caller told it created its document', async () => {
    const collection = collectionNamed('many');
    const seen = countingInsertMany(collection);
    const inserts = new GroupedInserts(collection, { timeoutMs: 10_000, maxBatch: 50 });

    const results = await Promise.all(Array.from({ length: 300 }, (_, n) => inserts.insert({ _id: `fact:${n}`, n })));

    expect(results.every((created) => created)).to.equal(true);
    expect(await collection.countDocuments()).to.equal(300);
    expect(seen.calls.reduce((sum, size) => sum + size, 0)).to.equal(300);
    expect(seen.calls.length).to.be.at.most(12);
    expect(Math.max(...seen.calls)).to.be.at.most(50);
  });

  it('with lingerMs, gathers documents inserted over several turns of the event loop into one write', async () => {
    const collection = collectionNamed('lingering');
    const seen = countingInsertMany(collection);
    const inserts = new GroupedInserts(collection, { timeoutMs: 10_000, lingerMs: 2000 });
    const pending: Promise<boolean>[] = [];
    for (let n = 0; n < 5; n += 1) {
      pending.push(inserts.insert({ _id: `fact:${n}`, n }));
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(await Promise.all(pending)).to.deep.equal([true, true, true, true, true]);
    expect(seen.calls).to.deep.equal([5]);
  });

  it('tells exactly one caller per _id that it created the document, within one batch and across batches', async () => {
    const collection = collectionNamed('duplicates');
    await collection.insertOne({ _id: 'fact:stored', n: -1 });
    const inserts = new GroupedInserts(collection, { timeoutMs: 10_000 });

    const ids = ['fact:stored', 'fact:a', 'fact:a', 'fact:b', 'fact:a', 'fact:stored', 'fact:c'];
    const results = await Promise.all(ids.map((id, n) => inserts.insert({ _id: id, n })));
    const again = await Promise.all(['fact:a', 'fact:d'].map((id) => inserts.insert({ _id: id, n: 99 })));

    expect(results).to.deep.equal([false, true, false, true, false, false, true]);
    expect(again).to.deep.equal([false, true]);
    const stored = await collection.find().sort({ _id: 1 }).toArray();
    expect(stored.map((fact) => [fact._id, fact.n])).to.deep.equal([
      ['fact:a', 1],
      ['fact:b', 3],
      ['fact:c', 6],
      ['fact:d', 99],
      ['fact:stored', -1],
    ]);
  });

  it('answers a hung database with ServiceUnavailableError in time, writes no document still queued, and recovers', async () => {
    await relay.open();
    const through = await connectMongo({ url: relay.url, dbName });
    try {
      const collection = through.db?.collection<Fact>('hung');
      if (!collection) throw new Error('not connected');
      const inserts = new GroupedInserts(collection, { timeoutMs: 400, maxBatch: 1 });
      relay.freeze();

      const started = Date.now();
      const outcomes = await Promise.allSettled([1, 2, 3].map((n) => inserts.insert({ _id: `fact:${n}`, n })));
      expect(Date.now() - started).to.be.below(3000);
      for (const outcome of outcomes) {
        expect(outcome.status).to.equal('rejected');
        expect((outcome as PromiseRejectedResult).reason).to.be.instanceOf(ServiceUnavailableError);
      }

      await relay.cut();
      await relay.open();
      const recovered = await waitForInsert(inserts, { _id: 'fact:after', n: 4 });
      expect(recovered).to.equal(true);
      // The first document was sent before the database hung and may have landed; the two queued behind it never do.
      const stored = (await collectionNamed('hung').find().toArray()).map((fact) => fact._id);
      expect(stored).to.include('fact:after');
      expect(stored).not.to.include('fact:2');
      expect(stored).not.to.include('fact:3');
    } finally {
      await through.close().catch(() => undefined);
    }
  });
});

/** Retries while the driver reconnects after the relay came back. */
async function waitForInsert(inserts: GroupedInserts<Fact>, fact: Fact): Promise<boolean> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    try {
      return await inserts.insert(fact);
    } catch (error) {
      if (!(error instanceof ServiceUnavailableError) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}
