import { shardIndexOf, shardName } from '@pilot/mongo';
import { testInfra } from '@pilot/testkit';
import { expect } from 'chai';
import { MongoClient, type Collection, type Db } from 'mongodb';
import { ConcurrentChangeError, projectionCollectionName, RECORDS_PER_COLLECTION, VersionedStore, type Current } from '../src';
import { campaign, facts, projectionOf, type Campaign } from './support';

describe('VersionedStore projections in collections by id range (real FerretDB)', () => {
  const infra = testInfra();
  const dbName = `outbox_shards_${infra.runId}`;
  let client: MongoClient;
  let db: Db;

  const storeOf = (base: string, on: Db = db) => new VersionedStore<Campaign>(on, 'campaign', base, `${base}_history`);
  const projectionCollections = async (base: string) =>
    (await db.listCollections({}, { nameOnly: true }).toArray()).map((found) => found.name).filter((name) => name !== base && name.startsWith(`${base}_`) && !name.startsWith(`${base}_history`));
  const stored = async (base: string) =>
    (await Promise.all((await projectionCollections(base)).map((name) => db.collection(name).find({}).toArray()))).flat();

  before(async () => {
    client = await MongoClient.connect(infra.mongoUrl, { retryWrites: false });
    db = client.db(dbName);
  });
  after(async () => {
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  });

  it('keeps each numbered record in the collection of its id range, and only there; named records in their hashed shard', async () => {
    const store = storeOf('routing');
    const ids = [1, 2, 256, 257, 1000, 123_456];
    for (const id of ids) await store.create(id, campaign(id), facts('submit', null, 'submitted'));
    const collectionOf = (id: number) => `routing_r${Math.floor((id - 1) / RECORDS_PER_COLLECTION)}`;
    expect(RECORDS_PER_COLLECTION).to.equal(256);
    for (const id of ids) {
      expect(projectionCollectionName('routing', String(id))).to.equal(collectionOf(id));
      expect(await db.collection(collectionOf(id)).countDocuments({ _id: String(id) as never }), `campaign ${id} in its range`).to.equal(1);
    }
    expect(await projectionCollections('routing')).to.have.members(['routing_r0', 'routing_r1', 'routing_r3', 'routing_r482']);
    expect((await stored('routing')).map((document) => document.id)).to.have.members(ids);

    const named = storeOf('named');
    for (const key of ['home-top', 'home-bottom', '0', '007', '-3']) await named.create(key, campaign(1), facts('submit', null, 'submitted'));
    for (const key of ['home-top', 'home-bottom', '0', '007', '-3']) {
      expect(projectionCollectionName('named', key)).to.equal(shardName('named', shardIndexOf(key, 64)));
      expect(await named.loadProjection(key)).to.deep.include({ _id: key, version: 1 });
    }
  });

  it('reads a record by id from its own range collection whatever the others hold', async () => {
    const store = storeOf('bounded');
    // Many records in other ranges, one in range 0: a read of it touches only its own collection.
    const at = new Date('2026-02-01T00:00:00Z');
    await db.collection('bounded_r9').insertMany(
      Array.from({ length: 2000 }, (_, index) => ({ ...campaign(2305 + index), _id: String(2305 + index), id: 2305 + index, version: 1, createdAt: at, updatedAt: at })) as never[],
    );
    await store.create(5, campaign(5), facts('submit', null, 'submitted'));
    expect(await store.loadProjection(5)).to.deep.include({ _id: 5, version: 1 });
    expect(await store.loadProjection(2400)).to.deep.include({ _id: 2400, version: 1 });
    expect(await db.collection('bounded_r0').countDocuments({})).to.equal(1);
  });

  it('lists across every shard in the order, limit and projection asked for', async () => {
    const store = storeOf('listing');
    const records: Current<Campaign>[] = [];
    for (let id = 1; id <= 40; id += 1) {
      // Several records per instant, so the second sort key decides between them.
      const at = new Date(Date.UTC(2026, 1, 1, 0, 0, Math.floor(id / 3)));
      const state = { ...campaign(id), ownerAccountId: String(500 + (id % 3)), status: id % 4 === 0 ? ('active' as const) : ('submitted' as const) };
      records.push(await store.create(id, state, facts('submit', null, state.status, at)));
    }
    const newestFirst = [...records].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || Number(b._id) - Number(a._id));

    const all = await store.findCurrent({}, { sort: { createdAt: -1, id: -1 } });
    expect(all.map((record) => record._id)).to.deep.equal(newestFirst.map((record) => record._id));
    expect(all[0]).to.deep.equal(newestFirst[0]);

    const owned = await store.findCurrent({ ownerAccountId: '501' }, { sort: { createdAt: -1, id: -1 }, limit: 5 });
    expect(owned.map((record) => record._id)).to.deep.equal(newestFirst.filter((record) => record.ownerAccountId === '501').slice(0, 5).map((record) => record._id));

    const active = await store.findCurrent({ status: 'active' }, { sort: { id: 1 } });
    expect(active.map((record) => record._id)).to.deep.equal([4, 8, 12, 16, 20, 24, 28, 32, 36, 40]);

    // Pages by id, as the key read model rebuild reads them.
    const pages: number[][] = [];
    for (let after = 0; ; ) {
      const page = await store.findCurrent({ id: { $gt: after } }, { sort: { id: 1 }, limit: 15 });
      if (page.length > 0) pages.push(page.map((record) => Number(record._id)));
      if (page.length < 15) break;
      after = Number(page[page.length - 1]!._id);
    }
    expect(pages.map((page) => page.length)).to.deep.equal([15, 15, 10]);
    expect(pages.flat()).to.deep.equal(Array.from({ length: 40 }, (_, index) => index + 1));

    const versions = await store.findCurrent({}, { projection: { id: 1, version: 1 }, sort: { id: -1 }, limit: 3 });
    expect(versions.map((record) => ({ ...record }))).to.deep.equal([
      { _id: 40, version: 1 },
      { _id: 39, version: 1 },
      { _id: 38, version: 1 },
    ]);
  });

  it('creates an index on every projection collection, those that exist and those a later write creates', async () => {
    const store = storeOf('indexed');
    await store.create(1, campaign(1), facts('submit', null, 'submitted'));
    await store.ensureIndexes();
    await store.createCurrentIndex({ status: 1 });
    await store.create(300, campaign(300), facts('submit', null, 'submitted'));
    // Another process, started after the collections of 1 and 300 existed, creating the one of 600.
    const later = storeOf('indexed');
    await later.ensureIndexes();
    await later.createCurrentIndex({ status: 1 });
    await later.create(600, campaign(600), facts('submit', null, 'submitted'));
    expect(await projectionCollections('indexed')).to.have.members(['indexed_r0', 'indexed_r1', 'indexed_r2']);
    for (const name of await projectionCollections('indexed')) {
      const keys = (await db.collection(name).listIndexes().toArray()).map((index) => Object.keys(index.key as object).join(','));
      expect(keys, name).to.include.members(['id', 'status']);
    }
  });

  it('moves projections of the earlier layouts into their range collections at start, never back a version, then drops what they emptied', async () => {
    const base = 'migrating';
    const store = storeOf(base);
    const single = db.collection(base);
    const at = new Date('2026-02-01T00:00:00Z');

    // The oldest layout: the id itself as `_id`, no `id`; and the layout before shards: string key plus `id`.
    await single.insertOne({ ...campaign(1), _id: 1 as never, version: 1, createdAt: at, updatedAt: at });
    await single.insertOne({ ...campaign(2), _id: '2' as never, id: 2, version: 1, createdAt: at, updatedAt: at });
    // Already copied by a start that crashed before the drop, and changed since: the shard's copy is newer.
    const moved = await store.create(3, campaign(3), facts('submit', null, 'submitted', at));
    await store.change(moved, { ...campaign(3), title: 'changed since' }, facts('edit', null, null));
    await single.insertOne({ ...campaign(3), _id: '3' as never, id: 3, version: 1, createdAt: at, updatedAt: at });
    // A shard copy older than the single collection's: the history has the newer version.
    const behind = await store.create(4, campaign(4), facts('submit', null, 'submitted', at));
    await store.change(behind, { ...campaign(4), title: 'version 2' }, facts('edit', null, null));
    await db.collection(projectionCollectionName(base, '4')).replaceOne({ _id: '4' as never }, { ...campaign(4), _id: '4', id: 4, version: 1, createdAt: at, updatedAt: at });
    await single.insertOne({ ...campaign(4), title: 'version 2', _id: '4' as never, id: 4, version: 2, createdAt: at, updatedAt: at });
    // The layout of 0014: numbered records in 64 collections by a hash of the key.
    const hashedOf = (id: number) => db.collection(shardName(base, shardIndexOf(String(id), 64)));
    await hashedOf(5).insertOne({ ...campaign(5), _id: '5' as never, id: 5, version: 1, createdAt: at, updatedAt: at });
    await hashedOf(300).insertOne({ ...campaign(300), _id: '300' as never, id: 300, version: 1, createdAt: at, updatedAt: at });
    // Copied by a start that crashed before deleting it, and changed since.
    const copied = await store.create(6, campaign(6), facts('submit', null, 'submitted', at));
    await store.change(copied, { ...campaign(6), title: 'changed after the copy' }, facts('edit', null, null));
    await hashedOf(6).insertOne({ ...campaign(6), _id: '6' as never, id: 6, version: 1, createdAt: at, updatedAt: at });

    await store.ensureIndexes();
    await storeOf(base).ensureIndexes(); // again, as a second replica starting would

    expect(await db.listCollections({ name: base }).toArray()).to.deep.equal([]);
    expect(await projectionCollections(base)).to.have.members([`${base}_r0`, `${base}_r1`]);
    expect(await projectionOf(db, base, 1)).to.deep.include({ _id: '1', id: 1, version: 1 });
    expect(await projectionOf(db, base, 2)).to.deep.include({ _id: '2', id: 2, version: 1 });
    expect(await projectionOf(db, base, 3)).to.deep.include({ version: 2, title: 'changed since' });
    expect(await projectionOf(db, base, 4)).to.deep.include({ version: 2, title: 'version 2' });
    expect(await projectionOf(db, base, 5)).to.deep.include({ _id: '5', id: 5, version: 1 });
    expect(await projectionOf(db, base, 6)).to.deep.include({ version: 2, title: 'changed after the copy' });
    expect(await projectionOf(db, base, 300)).to.deep.include({ _id: '300', id: 300, version: 1 });
    expect((await stored(base)).map((document) => document._id)).to.have.members(['1', '2', '3', '4', '5', '6', '300']);
    expect(await store.load(1)).to.deep.include({ _id: 1, version: 1, status: 'submitted' });
    const listed = await store.findCurrent({}, { sort: { id: 1 } });
    expect(listed.map((record) => [record._id, record.version])).to.deep.equal([
      [1, 1],
      [2, 1],
      [3, 2],
      [4, 2],
      [5, 1],
      [6, 2],
      [300, 1],
    ]);
  });

  it('ends with the newest projection when an older write lands after a newer one', async () => {
    const base = 'crossing';
    // Writer A's projection writes wait at a gate, so writer B moves the record on meanwhile.
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const gated = gatedReplaces(db, gate);
    const writerA = storeOf(base, gated);
    const writerB = storeOf(base);

    const created = await writerB.create(7, campaign(7), facts('submit', null, 'submitted'));
    const changeA = writerA.change(created, { ...campaign(7), title: 'A' }, facts('edit', null, null));
    // B reads the record rolled forward to A's version 2 (from history) and changes it to version 3.
    let read: Current<Campaign> | null = null;
    for (let attempt = 0; attempt < 50 && read?.version !== 2; attempt += 1) read = await writerB.load(7);
    expect(read?.version).to.equal(2);
    await writerB.change(read as Current<Campaign>, { ...campaign(7), title: 'B' }, facts('edit', null, null));
    expect(await projectionOf(db, base, 7)).to.deep.include({ version: 3, title: 'B' });

    openGate(); // A's version 2 now lands on top of B's version 3; A's check, after its answer, sees version 3
    expect(await changeA).to.deep.include({ version: 2, title: 'A' });
    await writerA.settled();
    expect(await projectionOf(db, base, 7)).to.deep.include({ version: 3, title: 'B' });
  });

  it('ends with the newest projection of every record after concurrent writers from two stores', async function () {
    this.timeout(60_000);
    const base = 'racing';
    const stores = [storeOf(base), storeOf(base)];
    const ids = [101, 102, 103];
    for (const id of ids) await stores[0]!.create(id, campaign(id), facts('submit', null, 'submitted'));
    // Each writer reloads and writes on top until it made its changes, as a PUT replacement does.
    const writer = async (store: VersionedStore<Campaign>, id: number, name: string) => {
      for (let made = 0; made < 5; ) {
        const record = (await store.load(id)) as Current<Campaign>;
        try {
          await store.change(record, { ...campaign(id), title: `${name} ${made}` }, facts('edit', null, null));
          made += 1;
        } catch (error) {
          if (!(error instanceof ConcurrentChangeError)) throw error;
        }
      }
    };
    await Promise.all(ids.flatMap((id) => stores.map((store, index) => writer(store, id, `writer ${index}`))));
    // The roll-forward check after an overtaken write runs after its answer: wait for both stores' checks.
    await Promise.all(stores.map((store) => store.settled()));
    for (const id of ids) {
      const newest = await db.collection(`${base}_history`).findOne({ _id: `${id}:11` as never });
      expect(newest, `campaign ${id} has 11 versions`).to.not.equal(null);
      expect(await projectionOf(db, base, id)).to.deep.include({ version: 11, title: (newest?.state as Campaign).title });
    }
  });
});

/** `db` whose collections wait for `gate` before every replaceOne (a projection write slowed down). */
function gatedReplaces(db: Db, gate: Promise<void>): Db {
  return new Proxy(db, {
    get(target, property, receiver) {
      if (property !== 'collection') return Reflect.get(target, property, receiver) as unknown;
      return (name: string) => {
        const collection = target.collection(name);
        return new Proxy(collection, {
          get(inner: Collection, key, innerReceiver) {
            const value = Reflect.get(inner, key, innerReceiver) as unknown;
            if (key !== 'replaceOne' || typeof value !== 'function') return typeof value === 'function' ? value.bind(inner) : value;
            return async (...args: unknown[]) => {
              await gate;
              return (value as (...replaceArgs: unknown[]) => unknown).apply(inner, args);
            };
          },
        });
      };
    },
  });
}
