import { createMetricsRegistry, isInfrastructureError } from '@pilot/platform';
import { reservedPort, testInfra } from '@pilot/testkit';
import { expect } from 'chai';
import { Schema } from 'mongoose';
import { claimOnce, connectMongo, IdCounter, isDuplicateKeyError, modelOf, pingMongo, storedSchema, type Connection } from '../../src';

interface Claim {
  _id: string;
  by?: number;
}
interface NumberedClaim {
  _id: number;
}
const claimSchema = storedSchema<Claim>({ _id: { type: String, required: true }, by: Number });
const numberedClaimSchema = storedSchema<NumberedClaim>({ _id: { type: Number, required: true } });
const claims = (connection: Connection) => modelOf(connection, 'claims', claimSchema);

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

  it('counts the commands it sends by name in the registry it is given', async () => {
    const registry = createMetricsRegistry('storage-test');
    const connection = await connectMongo({ url: infra.mongoUrl, dbName, registry });
    connections.push(connection);
    const model = claims(connection);
    await model.create({ _id: 'counted:1' });
    await model.findById('counted:1').lean();
    await model.findById('counted:2').lean();
    const counted = async () => {
      const metric = await registry.getSingleMetric('pilot_store_commands_total')?.get();
      return Object.fromEntries((metric?.values ?? []).map((value) => [String(value.labels.command), value.value]));
    };
    expect(await counted()).to.include({ insert: 1, find: 2 });
  });

  it('fails the readiness ping once the connection is closed', async () => {
    const connection = await connectMongo({ url: infra.mongoUrl, dbName });
    await connection.close();
    let failure: unknown;
    await pingMongo(connection).catch((error: unknown) => (failure = error));
    expect((failure as Error).message).to.equal('MongoDB is not connected');
  });

  it('fails to connect quickly, as an infrastructure fault, when nothing listens', async function () {
    // Only the 300 ms server selection deadline ends this in time: the driver's default (30 s) would not.
    this.timeout(10_000);
    let failure: unknown;
    await connectMongo({ url: `mongodb://127.0.0.1:${await reservedPort()}/`, dbName, serverSelectionTimeoutMS: 300 }).catch((error: unknown) => (failure = error));
    expect(isInfrastructureError(failure), String(failure)).to.equal(true);
    expect((failure as Error).name).to.match(/ServerSelectionError$/);
  });

  it('lets exactly one of 20 concurrent claims of one id win, across two connections', async () => {
    const [first, second] = [await connect(), await connect()];
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, index) => claimOnce(claims(index % 2 === 0 ? (first as Connection) : (second as Connection)), 'delivery:abc', { by: index })),
    );
    expect(results.filter(Boolean)).to.have.length(1);
    const stored = await first?.db?.collection('claims').find({ _id: 'delivery:abc' as never }).toArray();
    expect(stored).to.have.length(1);
    expect(stored?.[0]?.by).to.equal(results.indexOf(true));
  });

  it('claims different ids independently, numeric ids included', async () => {
    const connection = await connect();
    expect(await claimOnce(claims(connection), 'other', {})).to.equal(true);
    const numbered = modelOf(connection, 'numbered_claims', numberedClaimSchema);
    expect(await claimOnce(numbered, 7, {})).to.equal(true);
    expect(await claimOnce(numbered, 7, {})).to.equal(false);
    expect(await connection.db?.collection('numbered_claims').findOne({})).to.deep.equal({ _id: 7 });
  });

  it('writes exactly the fields given: no __v, no ObjectId, an unknown field refused', async () => {
    const connection = await connect();
    expect(await claimOnce(claims(connection), 'exact', { by: 3 })).to.equal(true);
    expect(await connection.db?.collection('claims').findOne({ _id: 'exact' as never })).to.deep.equal({ _id: 'exact', by: 3 });
    const loose = modelOf(connection, 'claims_loose', new Schema({ _id: String }, { versionKey: false }));
    const withUndeclaredField = { by: 1, extra: true };
    let refused: unknown;
    await claimOnce(claims(connection), 'extra', withUndeclaredField).catch((error: unknown) => (refused = error));
    expect(String(refused)).to.match(/not in schema/);
    expect(() => modelOf(connection, 'claims', loose.schema)).to.throw(/another schema/);
  });

  it('hands out distinct, increasing ids from one counter document to 20 concurrent callers on two connections', async () => {
    const [first, second] = [await connect(), await connect()];
    const counters = [first, second].map((connection) => {
      const db = (connection as Connection).db!;
      return new IdCounter(db, 'counted_records');
    });
    const ids = await Promise.all(Array.from({ length: 20 }, (_, index) => counters[index % 2]!.next()));
    expect([...ids].sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 20 }, (_, index) => index + 1));
    expect(await counters[0]!.next()).to.equal(21);
    expect(await first?.db?.collection('counters').findOne({ _id: 'counted_records' as never })).to.deep.include({ seq: 21 });
  });

  it('starts a new counter above the highest id already in use, in the records and in the collections named with them', async () => {
    const db = (await connect()).db!;
    await db.collection('seeded_records').insertMany([{ _id: 40 as never }, { _id: 7 as never }]);
    await db.collection('seeded_history').insertOne({ _id: '55:1' as never, entityId: 55 });
    expect(await new IdCounter(db, 'seeded_records').next()).to.equal(41);
    expect(await new IdCounter(db, 'seeded_records', [{ collection: 'seeded_history', field: 'entityId' }]).next()).to.equal(56);
    expect(await new IdCounter(db, 'empty_records').next()).to.equal(1);
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
