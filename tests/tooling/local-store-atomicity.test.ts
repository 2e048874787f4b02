/**
 * MongoDB's single-document atomicity, checked on the store at MONGO_URL (the local store the scripts build,
 * or a MongoDB server) by eight clients on eight connections racing on the same documents: a `$inc` is never
 * lost, two upserts of one `_id` insert once and count both, an upsert that meets a plain insert of its
 * `_id` updates it, a version-guarded update has one winner, a counter document never hands out a value
 * twice, and a delete removes only a document that still matches, once. Every figure asserted is MongoDB's.
 */
import { uniqueName } from '@pilot/testkit';
import { expect } from 'chai';
import { MongoClient, MongoServerError, type Collection, type Db, type Document } from 'mongodb';

const CLIENTS = 8;
const ROUNDS = 50;
const mongoUrl = process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/';

interface Counter {
  _id: number | string;
  n: number;
}

interface Versioned {
  _id: number;
  version: number;
  winner?: number;
}

/** Whether a failure is MongoDB's duplicate-key error (E11000). */
function isDuplicateKey(error: unknown): boolean {
  return error instanceof MongoServerError && error.code === 11000;
}

/** How many of the settled results failed with a duplicate-key error; any other failure is thrown. */
function duplicateKeyErrors(results: readonly PromiseSettledResult<unknown>[]): number {
  let count = 0;
  for (const result of results) {
    if (result.status === 'fulfilled') continue;
    if (!isDuplicateKey(result.reason)) throw result.reason;
    count++;
  }
  return count;
}

describe('the store at MONGO_URL, raced by eight clients, keeps MongoDB’s single-document atomicity', function () {
  this.timeout(5 * 60_000);
  const dbName = uniqueName('atomicity');
  const clients: MongoClient[] = [];
  /** The test database as each client sees it, one connection each. */
  let racers: Db[] = [];

  before(async () => {
    for (let i = 0; i < CLIENTS; i++) clients.push(new MongoClient(mongoUrl, { maxPoolSize: 1, minPoolSize: 1 }));
    await Promise.all(clients.map((client) => client.connect()));
    racers = clients.map((client) => client.db(dbName));
    await racers[0]!.command({ ping: 1 });
  });

  after(async () => {
    await racers[0]?.dropDatabase();
    await Promise.all(clients.map((client) => client.close()));
  });

  /** One collection of the test database, as each racer sees it. */
  function collections<T extends Document>(name: string): Collection<T>[] {
    return racers.map((db) => db.collection<T>(name));
  }

  it('counts every $inc of one document: 8 clients x 50 increments make 400', async () => {
    const counters = collections<Counter>('incs');
    await counters[0]!.insertOne({ _id: 'hits', n: 0 });
    const modified = await Promise.all(
      counters.map(async (counter) => {
        let count = 0;
        for (let round = 0; round < ROUNDS; round++) count += (await counter.updateOne({ _id: 'hits' }, { $inc: { n: 1 } })).modifiedCount;
        return count;
      }),
    );
    expect(modified.reduce((sum, count) => sum + count, 0), 'increments acknowledged').to.equal(CLIENTS * ROUNDS);
    expect(await counters[0]!.findOne({ _id: 'hits' }), 'increments counted').to.deep.equal({ _id: 'hits', n: CLIENTS * ROUNDS });
  });

  it('upserts one _id from 8 clients at once without a duplicate-key error, one document counting all 8, in each of 50 rounds', async () => {
    const counters = collections<Counter>('upserts');
    let duplicates = 0;
    let upserted = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const results = await Promise.allSettled(counters.map((counter) => counter.updateOne({ _id: round }, { $inc: { n: 1 } }, { upsert: true })));
      duplicates += duplicateKeyErrors(results);
      upserted += results.filter((result) => result.status === 'fulfilled' && result.value.upsertedCount === 1).length;
    }
    const documents = await counters[0]!.find({}).sort({ _id: 1 }).toArray();
    expect(duplicates, 'duplicate-key errors').to.equal(0);
    expect(upserted, 'upserts that inserted: one a round').to.equal(ROUNDS);
    expect(documents.map((document) => document.n).reduce((sum, n) => sum + n, 0), 'increments counted').to.equal(CLIENTS * ROUNDS);
    expect(documents, 'one document a round, counting all 8').to.deep.equal(Array.from({ length: ROUNDS }, (_, round) => ({ _id: round, n: CLIENTS })));
  });

  it('lets an upsert that meets a plain insert of its _id update that document: only inserts may fail, and every upsert counts', async () => {
    const counters = collections<Counter>('upserts_and_inserts');
    let upsertErrors = 0;
    let insertsWritten = 0;
    const roundsMiscounted: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Half the clients upsert the document, the other half insert it; the first to arrive creates it.
      const upserts = counters.slice(0, CLIENTS / 2).map((counter) => counter.updateOne({ _id: round }, { $inc: { n: 1 } }, { upsert: true }));
      const inserts = counters.slice(CLIENTS / 2).map((counter) => counter.insertOne({ _id: round, n: 1 }));
      const [upsertResults, insertResults] = await Promise.all([Promise.allSettled(upserts), Promise.allSettled(inserts)]);
      const written = insertResults.filter((result) => result.status === 'fulfilled').length;
      expect(written + duplicateKeyErrors(insertResults), 'each insert is written or refused as a duplicate').to.equal(CLIENTS / 2);
      upsertErrors += upsertResults.filter((result) => result.status === 'rejected').length;
      insertsWritten += written;
      const counted = (await counters[0]!.findOne({ _id: round }))?.n;
      if (counted !== written + CLIENTS / 2) roundsMiscounted.push(`round ${round}: ${counted} counted, ${written} inserted + ${CLIENTS / 2} upserted`);
    }
    expect(upsertErrors, 'upserts that failed').to.equal(0);
    expect(roundsMiscounted, 'rounds whose document misses an increment').to.deep.equal([]);
    expect(insertsWritten, 'inserts written: at most one a round').to.be.at.most(ROUNDS);
  });

  it('gives a version-guarded update exactly one winner among 8 racers, in each of 50 rounds', async () => {
    const records = collections<Versioned>('guarded');
    await records[0]!.insertOne({ _id: 1, version: 0 });
    const roundsWithoutOneWinner: string[] = [];
    for (let version = 0; version < ROUNDS; version++) {
      const modified = await Promise.all(
        records.map(async (record, racer) => (await record.updateOne({ _id: 1, version }, { $set: { version: version + 1, winner: racer } })).modifiedCount),
      );
      const winners = modified.reduce((sum, count) => sum + count, 0);
      if (winners !== 1) roundsWithoutOneWinner.push(`version ${version}: ${winners} winners`);
    }
    expect(roundsWithoutOneWinner, 'rounds without exactly one winner').to.deep.equal([]);
    expect((await records[0]!.findOne({ _id: 1 }))?.version).to.equal(ROUNDS);
  });

  it('hands out each value of a counter document once through findOneAndUpdate: 8 racers x 50 take 1 to 400', async () => {
    const counters = collections<Counter>('ids');
    let duplicates = 0;
    const taken = await Promise.all(
      counters.map(async (counter) => {
        const values: number[] = [];
        for (let round = 0; round < ROUNDS; round++) {
          // The counter does not exist yet: the first racers to arrive upsert it at once.
          const after = await counter.findOneAndUpdate({ _id: 'campaign' }, { $inc: { n: 1 } }, { upsert: true, returnDocument: 'after' }).catch((error: unknown) => {
            if (!isDuplicateKey(error)) throw error;
            duplicates++;
            return null;
          });
          if (after) values.push(after.n);
        }
        return values;
      }),
    );
    const all = taken.flat().sort((a, b) => a - b);
    expect(duplicates, 'duplicate-key errors').to.equal(0);
    expect(all.length - new Set(all).size, 'values handed out twice').to.equal(0);
    expect(all).to.deep.equal(Array.from({ length: CLIENTS * ROUNDS }, (_, i) => i + 1));
    expect(await counters[0]!.findOne({ _id: 'campaign' })).to.deep.equal({ _id: 'campaign', n: CLIENTS * ROUNDS });
  });

  it('deletes a document once: of 8 racers deleting or changing it from one version, exactly one wins, the others report 0', async () => {
    const records = collections<Versioned>('deleted');
    const roundsWithoutOneWinner: string[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await records[0]!.insertOne({ _id: round, version: 0 });
      // Even racers delete the document at version 0, odd ones move it to version 1.
      const outcomes = await Promise.all(
        records.map(async (record, racer) =>
          racer % 2 === 0
            ? { racer, deleted: (await record.deleteOne({ _id: round, version: 0 })).deletedCount, modified: 0 }
            : { racer, deleted: 0, modified: (await record.updateOne({ _id: round, version: 0 }, { $set: { version: 1, winner: racer } })).modifiedCount },
        ),
      );
      const winners = outcomes.filter((outcome) => outcome.deleted + outcome.modified > 0);
      const left = await records[0]!.findOne({ _id: round });
      if (winners.length !== 1) {
        roundsWithoutOneWinner.push(`round ${round}: ${winners.length} winners`);
      } else if (winners[0]!.deleted === 1) {
        expect(left, `round ${round}: the delete won, nothing is left`).to.equal(null);
      } else {
        expect(left, `round ${round}: the update won, its change is kept`).to.deep.equal({ _id: round, version: 1, winner: winners[0]!.racer });
      }
    }
    expect(roundsWithoutOneWinner, 'rounds without exactly one winner').to.deep.equal([]);
  });

  it('lets 8 racers each deleteOne a different document of those a filter matches, in each of 50 rounds', async () => {
    const jobs = collections<{ _id: number; round: number }>('jobs');
    let removed = 0;
    for (let round = 0; round < ROUNDS; round++) {
      await jobs[0]!.insertMany(Array.from({ length: CLIENTS }, (_, i) => ({ _id: round * CLIENTS + i, round })));
      const deleted = await Promise.all(jobs.map(async (job) => (await job.deleteOne({ round })).deletedCount));
      expect(deleted, `round ${round}: each racer deletes one`).to.deep.equal(Array.from({ length: CLIENTS }, () => 1));
      removed += deleted.reduce((sum, count) => sum + count, 0);
    }
    expect(removed).to.equal(CLIENTS * ROUNDS);
    expect(await jobs[0]!.countDocuments({}), 'nothing left').to.equal(0);
  });
});
