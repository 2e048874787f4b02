import { isInfrastructureError } from '@pilot/faults';
import { reservedPort, testInfra } from '@pilot/testkit';
import { expect } from 'chai';
import { claimOnce, connectMongo, insertWithNextId, isDuplicateKeyError, pingMongo, type Connection } from '../src';

describe('mongo (real MongoDB-compatible server, MONGO_URL)', () => {
  const infra = testInfra();
  const dbName = `mongo_pkg_${infra.runId}`;
  const connections: Connection[] = [];
  const connect = async () => {
    const connection = await connectMongo({ url: infra.mongoUrl, dbName });
    connections.push(connection);
    return connection;
  };

  after(async () => {
    await connections[0]?.dropDatabase().catch(() => undefined);
    await Promise.all(connections.map((connection) => connection.close().catch(() => undefined)));
  });

  it('connects to its own database and answers the readiness ping', async () => {
    const connection = await connect();
    expect(connection.readyState).to.equal(1);
    expect(connection.db?.databaseName).to.equal(dbName);
    await pingMongo(connection);
  });

  it('fails the readiness ping once the connection is closed', async () => {
    const connection = await connectMongo({ url: infra.mongoUrl, dbName });
    await connection.close();
    let failure: unknown;
    await pingMongo(connection).catch((error: unknown) => (failure = error));
    expect((failure as Error).message).to.equal('MongoDB is not connected');
  });

  it('fails to connect quickly, as an infrastructure fault, when nothing listens', async () => {
    const started = Date.now();
    let failure: unknown;
    await connectMongo({ url: `mongodb://127.0.0.1:${await reservedPort()}/`, dbName, serverSelectionTimeoutMS: 300 }).catch((error: unknown) => (failure = error));
    expect(isInfrastructureError(failure), String(failure)).to.equal(true);
    expect(Date.now() - started).to.be.below(3000);
  });

  it('lets exactly one of 20 concurrent claims of one id win, across two connections', async () => {
    const [first, second] = [await connect(), await connect()];
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) => claimOnce(index % 2 === 0 ? (first as Connection) : (second as Connection), 'claims', 'delivery:abc', { by: index })),
    );
    expect(results.filter(Boolean)).to.have.length(1);
    const stored = await first?.db?.collection('claims').find({ _id: 'delivery:abc' as never }).toArray();
    expect(stored).to.have.length(1);
    expect(stored?.[0]?.by).to.equal(results.indexOf(true));
  });

  it('claims different ids independently, numeric ids included', async () => {
    const connection = await connect();
    expect(await claimOnce(connection, 'claims', 'other')).to.equal(true);
    expect(await claimOnce(connection, 'claims', 7)).to.equal(true);
    expect(await claimOnce(connection, 'claims', 7)).to.equal(false);
  });

  it('hands out distinct, increasing ids to 20 concurrent inserts from two connections', async () => {
    const [first, second] = [await connect(), await connect()];
    const ids = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        insertWithNextId(index % 2 === 0 ? (first as Connection) : (second as Connection), 'records', (id) => ({ label: `record ${id}`, index })),
      ),
    );
    expect(new Set(ids).size).to.equal(20);
    expect([...ids].sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 20 }, (_, index) => index + 1));
    const stored = await first?.db?.collection('records').find({}).sort({ _id: 1 }).toArray();
    expect(stored?.map((doc) => doc._id)).to.deep.equal(Array.from({ length: 20 }, (_, index) => index + 1));
    for (const doc of stored ?? []) expect(doc.label).to.equal(`record ${doc._id}`);

    const next = await insertWithNextId(first as Connection, 'records', () => ({ label: 'after' }));
    expect(next).to.equal(21);
  });

  it('starts at 1 in an empty collection', async () => {
    expect(await insertWithNextId(await connect(), 'fresh', () => ({}))).to.equal(1);
  });

  it('tells a duplicate key error from other errors', async () => {
    const connection = await connect();
    const collection = connection.db?.collection('dups');
    await collection?.insertOne({ _id: 'x' as never });
    let duplicate: unknown;
    await collection?.insertOne({ _id: 'x' as never }).catch((error: unknown) => (duplicate = error));
    expect(isDuplicateKeyError(duplicate)).to.equal(true);
    expect(isDuplicateKeyError(new Error('E11000'))).to.equal(false);
    expect(isDuplicateKeyError({ code: 11001 })).to.equal(false);
    expect(isDuplicateKeyError(null)).to.equal(false);
  });
});
