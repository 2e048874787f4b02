import { isInfrastructureError, withDeadline } from '@pilot/platform';
import { testInfra } from '@pilot/testkit';
import { expect } from 'chai';
import { connectMongo, wholeCollectionScan, type Connection } from '../../src';

/**
 * A read that answered 503 at its deadline must not run on in the database. FerretDB
 * scans and decodes every document for a filter it cannot push down to SQLite (an $elemMatch here: 1.6 to
 * 1.9 s over these 40,000 documents, where SQLite answers a $regex in about the deadline), so a few such
 * reads abandoned by the caller used to keep the database and the connection pool busy for seconds.
 */
describe('connectMongo: the operation deadline ends the work in the database (MONGO_URL)', function () {
  this.timeout(120_000);
  const infra = testInfra();
  const dbName = `mongo_deadline_${infra.runId}`;
  const DEADLINE_MS = 300;
  let connection: Connection;

  const slowRead = () => connection.db!.collection('padded').find({ pad: { $elemMatch: { $eq: 'never-there' } } }).toArray();
  const quickRead = () => connection.db!.collection('padded').findOne({ _id: 'd0_0' as never });

  before(async () => {
    const seeding = await connectMongo({ url: infra.mongoUrl, dbName });
    const padded = seeding.db!.collection('padded');
    const pad = 'x'.repeat(2000);
    for (let batch = 0; batch < 40; batch += 1) {
      await padded.insertMany(Array.from({ length: 1000 }, (_, index) => ({ _id: `d${batch}_${index}` as never, pad })));
    }
    await seeding.close();
    connection = await connectMongo({ url: infra.mongoUrl, dbName, operationTimeoutMS: DEADLINE_MS });
  });

  after(async () => {
    await connection?.dropDatabase().catch(() => undefined);
    await connection?.close().catch(() => undefined);
  });

  it('stops reads the caller gave up on, so the next read is not queued behind them', async () => {
    const started = performance.now();
    // As many as the pool has connections (connectMongo's maxPoolSize), as a burst of timed-out stats calls.
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => withDeadline(slowRead(), DEADLINE_MS, 'mongodb').catch((error: unknown) => error)));
    for (const outcome of outcomes) expect(isInfrastructureError(outcome), String(outcome)).to.equal(true);
    expect(performance.now() - started).to.be.below(DEADLINE_MS + 700);

    const quickStarted = performance.now();
    expect(await quickRead()).to.not.equal(null);
    // Before the fix the scans ran on (seconds each on FerretDB over SQLite), holding every connection of
    // the pool, and this read waited for one of them.
    expect(performance.now() - quickStarted).to.be.below(1500);
  });

  it('fails a read past the deadline as a fault of infrastructure (503), not a bug (500)', async () => {
    let failure: unknown;
    await slowRead().catch((error: unknown) => (failure = error));
    expect(failure, 'the read finished within the deadline').to.be.instanceOf(Error);
    // Ended by the driver's operation deadline, not by the scan finishing or failing on its own.
    expect((failure as Error).name).to.equal('MongoOperationTimeoutError');
    expect(isInfrastructureError(failure), String(failure)).to.equal(true);
  });

  it('still inserts, updates, replaces and deletes with the deadline set', async () => {
    const writes = connection.db!.collection<{ _id: string; n: number }>('writes');
    await writes.insertOne({ _id: 'a', n: 1 });
    await writes.insertMany([{ _id: 'b', n: 1 }, { _id: 'c', n: 1 }]);
    await writes.updateOne({ _id: 'a' }, { $set: { n: 2 } });
    await writes.replaceOne({ _id: 'b' }, { n: 3 });
    await writes.deleteOne({ _id: 'c' });
    expect(await writes.find({}).sort({ _id: 1 }).toArray()).to.deep.equal([
      { _id: 'a', n: 2 },
      { _id: 'b', n: 3 },
    ]);
  });

  it('gives each batch of a whole-collection walk the deadline, not the walk (a repair or a migration over growing data)', async () => {
    const padded = connection.db!.collection('padded');
    /** Walks 600 documents in batches of 100, taking 100 ms over each: longer in all than the deadline. */
    const walk = async (options: object) => {
      let seen = 0;
      for await (const document of padded.find({}, { batchSize: 100, limit: 600, projection: { _id: 1 }, ...options })) {
        seen += document ? 1 : 0;
        if (seen % 100 === 0) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return seen;
    };
    const lifetime = await walk({}).catch((error: unknown) => error);
    expect(isInfrastructureError(lifetime), 'the deadline of the whole walk ran out').to.equal(true);
    expect(await walk(wholeCollectionScan(padded))).to.equal(600);
  });
});
