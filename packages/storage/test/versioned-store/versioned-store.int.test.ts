import { CAMPAIGN_ACTIVATED, CAMPAIGN_SUBMITTED, type KnownEvent } from '@pilot/contracts';
import { testInfra } from '@pilot/testkit';
import { expect } from 'chai';
import { MongoClient, type Collection, type Db, type FindCursor } from 'mongodb';
import { ConcurrentChangeError, VersionedStore, type Current, type HistoryEntry } from '../../src';
import { campaign, campaignEvent, entryOf, facts, isPending, projectionOf, type Campaign } from './support';

describe('VersionedStore (real FerretDB)', () => {
  const infra = testInfra();
  const dbName = `versioned_store_${infra.runId}`;
  let client: MongoClient;
  let db: Db;
  let nextId = 1;

  const storeOf = (base: string, options: ConstructorParameters<typeof VersionedStore>[4] = {}, database: Db = db) =>
    new VersionedStore<Campaign>(database, 'campaign', base, `${base}_history`, options);
  /** A change another writer, or a process that died right after its entry, left: the entry alone. */
  const entryWithoutProjection = (store: VersionedStore<Campaign>, state: Campaign, version: number, at = new Date('2026-02-01T10:00:00Z')) =>
    store.history.insertOne(entryOf(state, version, facts('edit', null, null, at)));

  before(async () => {
    client = await MongoClient.connect(infra.mongoUrl, { retryWrites: false });
    db = client.db(dbName);
  });
  after(async () => {
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  });

  it('keeps each kind of record in two collections: the current records under their own ids, and the history', async () => {
    const store = storeOf('two');
    await store.ensureIndexes();
    await store.createCurrentIndex({ ownerAccountId: 1 });
    for (const id of [1, 300, 70_000]) await store.create(id, campaign(id), facts('submit', null, 'submitted'));
    const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((found) => found.name).filter((name) => name.startsWith('two'));
    expect(names).to.have.members(['two', 'two_history']);
    expect((await db.collection('two').find({}).sort({ _id: 1 }).toArray()).map((record) => record._id)).to.deep.equal([1, 300, 70_000]);
    const historyIndexes = (await store.history.indexes()).map((index) => JSON.stringify(index.key));
    expect(historyIndexes).to.include.members(['{"entityId":1,"at":-1,"_id":-1}', '{"ownerAccountId":1,"at":-1,"_id":-1}', '{"at":-1,"_id":-1}', '{"pendingSince":1}']);
    expect((await store.current.indexes()).map((index) => JSON.stringify(index.key))).to.include('{"ownerAccountId":1}');
  });

  it('creates version 1 as a history entry carrying state, audit facts and events, and the record under its id', async () => {
    const store = storeOf('create');
    const state = campaign(nextId++);
    const event = campaignEvent(state, 1);
    const created = await store.create(state.campaignId, state, facts('submit', 'draft', 'submitted'), [event]);
    expect(created).to.include({ _id: state.campaignId, version: 1, status: 'submitted' });
    const entry = (await store.history.findOne({ _id: `${state.campaignId}:1` })) as HistoryEntry<Campaign>;
    expect(entry).to.include({ entity: 'campaign', entityId: state.campaignId, version: 1, ownerAccountId: '501', action: 'submit', from: 'draft', to: 'submitted', reason: null });
    expect(entry.state).to.deep.equal(state);
    expect(entry.outbox).to.deep.equal([event]);
    expect(await isPending(store, entry._id), 'no publisher: the events wait for the relay').to.equal(true);
    expect(await projectionOf(db, 'create', state.campaignId)).to.deep.include({ _id: state.campaignId, version: 1, title: state.title });
    expect(await store.load(state.campaignId)).to.deep.equal(created);
  });

  it('publishes a change beside its projection write and marks it finished: three writes in all', async () => {
    const published: KnownEvent[] = [];
    const commands: string[] = [];
    const watched = await MongoClient.connect(infra.mongoUrl, { retryWrites: false, monitorCommands: true });
    try {
      watched.on('commandStarted', (started) => {
        if (['insert', 'update', 'delete', 'findAndModify'].includes(started.commandName)) commands.push(started.commandName);
      });
      const store = storeOf('three', { publish: async (events) => void published.push(...events) }, watched.db(dbName));
      const state = campaign(nextId++);
      const created = await store.create(state.campaignId, state, facts('submit', 'draft', 'submitted'), [campaignEvent(state, 1)]);
      await store.settled();
      commands.length = 0;
      const active = { ...state, status: 'active' as const };
      const { changed, published: onTheBus } = await store.changeAndPublish(created, active, facts('activate', 'submitted', 'active'), [campaignEvent(active, 2)]);
      expect(onTheBus).to.equal(true);
      expect(changed).to.include({ version: 2, status: 'active' });
      await store.settled();
      expect(commands, 'the entry, the projection, the finish').to.deep.equal(['insert', 'update', 'update']);
      expect(published.map((event) => [event.type, event.aggregateVersion])).to.deep.equal([
        [CAMPAIGN_SUBMITTED, 1],
        [CAMPAIGN_ACTIVATED, 2],
      ]);
      expect(await isPending(store, `${state.campaignId}:1`)).to.equal(false);
      expect(await isPending(store, `${state.campaignId}:2`)).to.equal(false);
    } finally {
      await watched.close();
    }
  });

  it('finishes the changes answered within a moment together: one lookup and one update for all of them', async () => {
    const commands: string[] = [];
    const watched = await MongoClient.connect(infra.mongoUrl, { retryWrites: false, monitorCommands: true });
    try {
      watched.on('commandStarted', (started) => {
        if (['insert', 'update', 'find'].includes(started.commandName)) commands.push(started.commandName);
      });
      // A long delay: the batch waits for settled(), however slow the machine.
      const store = storeOf('batched', { publish: async () => undefined, finishDelayMs: 60_000 }, watched.db(dbName));
      const states = [campaign(nextId++), campaign(nextId++), campaign(nextId++), campaign(nextId++)];
      await Promise.all(states.map((state) => store.create(state.campaignId, state, facts('submit', 'draft', 'submitted'), [campaignEvent(state, 1)])));
      for (const state of states) expect(await isPending(storeOf('batched'), `${state.campaignId}:1`), 'answered, not yet finished').to.equal(true);
      await store.settled();
      expect(commands.filter((name) => name === 'insert'), 'one entry a change').to.have.length(4);
      expect(commands.slice(-2), 'the batch: one lookup, one update').to.deep.equal(['find', 'update']);
      expect(commands.filter((name) => name === 'update'), 'a projection a change, and the finish of all four').to.have.length(5);
      for (const state of states) expect(await isPending(store, `${state.campaignId}:1`)).to.equal(false);
    } finally {
      await watched.close();
    }
  });

  it('answers a change once its projection is written and its events published, and finishes it after the answer', async () => {
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const published: KnownEvent[] = [];
    // The lookup of the next versions' entries (the first step of the finish) waits at the gate.
    const store = storeOf('answer_first', { publish: async (events) => void published.push(...events) }, gated(db, 'find', gate));
    const state = campaign(nextId++);
    const changed = await store.create(state.campaignId, state, facts('submit', 'draft', 'submitted'), [campaignEvent(state, 1)]);
    expect(changed.version).to.equal(1);
    expect(published).to.have.length(1);
    expect(await projectionOf(db, 'answer_first', state.campaignId)).to.deep.include({ version: 1 });
    const reader = storeOf('answer_first');
    expect(await isPending(reader, `${state.campaignId}:1`), 'the finish waits at the gate').to.equal(true);
    openGate();
    await store.settled();
    expect(await isPending(reader, `${state.campaignId}:1`)).to.equal(false);
  });

  it('leaves a change pending, and says so, when its events could not be published', async () => {
    const store = storeOf('unpublished', {
      publish: async () => {
        throw new Error('broker unreachable');
      },
    });
    const state = campaign(nextId++);
    const created = await store.create(state.campaignId, state, facts('submit', null, 'submitted'));
    await store.settled();
    expect(await isPending(store, `${state.campaignId}:1`), 'a change without events is finished right after its answer').to.equal(false);
    const active = { ...state, status: 'active' as const };
    const { changed, published } = await store.changeAndPublish(created, active, facts('activate', 'submitted', 'active'), [campaignEvent(active, 2)]);
    await store.settled();
    expect(published).to.equal(false);
    expect(changed.version).to.equal(2);
    expect(await isPending(store, `${state.campaignId}:2`)).to.equal(true);
    expect(await store.loadProjection(state.campaignId)).to.deep.include({ version: 2, status: 'active' });
  });

  it('refuses to create a record whose id exists', async () => {
    const store = storeOf('refuse');
    const state = campaign(nextId++);
    await store.create(state.campaignId, state, facts('submit', null, 'submitted'));
    let failure: unknown;
    await store.create(state.campaignId, state, facts('submit', null, 'submitted')).catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(ConcurrentChangeError);
  });

  it('changes a record to the next version, keeping createdAt and recording the change', async () => {
    const store = storeOf('change');
    const state = campaign(nextId++);
    const created = await store.create(state.campaignId, state, facts('submit', null, 'submitted', new Date('2026-02-01T10:00:00Z')));
    const next = { ...state, status: 'active' as const };
    const changed = await store.change(created, next, { ...facts('activate', 'submitted', 'active', new Date('2026-02-02T10:00:00Z')), reason: 'go' }, [campaignEvent(next, 2)]);
    expect(changed).to.include({ version: 2, status: 'active' });
    expect(changed.createdAt.toISOString()).to.equal('2026-02-01T10:00:00.000Z');
    expect(changed.updatedAt.toISOString()).to.equal('2026-02-02T10:00:00.000Z');
    expect(await store.load(state.campaignId)).to.deep.include({ version: 2, status: 'active' });
    const history = await store.history.find({ entityId: state.campaignId }).sort({ version: 1 }).toArray();
    expect(history.map((entry) => [entry.version, entry.action, entry.reason])).to.deep.equal([
      [1, 'submit', null],
      [2, 'activate', 'go'],
    ]);
    expect(VersionedStore.nextVersion(changed)).to.equal(3);
  });

  it('lets exactly one of several concurrent changes from the same version win', async () => {
    const store = storeOf('concurrent');
    const state = campaign(nextId++);
    const created = await store.create(state.campaignId, state, facts('submit', null, 'submitted'));
    const attempts = await Promise.allSettled(
      Array.from({ length: 8 }, (_, index) => store.change(created, { ...state, title: `title ${index}` }, facts('edit', 'submitted', 'submitted'))),
    );
    const won = attempts.filter((attempt) => attempt.status === 'fulfilled') as PromiseFulfilledResult<Current<Campaign>>[];
    const lost = attempts.filter((attempt) => attempt.status === 'rejected') as PromiseRejectedResult[];
    expect(won).to.have.length(1);
    expect(lost).to.have.length(7);
    for (const attempt of lost) expect(attempt.reason).to.be.instanceOf(ConcurrentChangeError);
    expect(await store.load(state.campaignId)).to.deep.include({ version: 2, title: won[0]?.value.title });
    expect(await store.history.countDocuments({ entityId: state.campaignId })).to.equal(2);
  });

  it('refuses a change made from a stale version', async () => {
    const store = storeOf('stale');
    const state = campaign(nextId++);
    const created = await store.create(state.campaignId, state, facts('submit', null, 'submitted'));
    await store.change(created, { ...state, title: 'first' }, facts('edit', null, null));
    let failure: unknown;
    await store.change(created, { ...state, title: 'stale' }, facts('edit', null, null)).catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(ConcurrentChangeError);
    expect((await store.load(state.campaignId))?.title).to.equal('first');
  });

  it('rolls the projection forward right after its write when the next version has an entry', async () => {
    const store = storeOf('after_write');
    const state = campaign(nextId++);
    const created = await store.create(state.campaignId, state, facts('submit', null, 'submitted'));
    // Another writer's entry for version 3, whose projection has not landed: the lookup after version 2's write finds it.
    await entryWithoutProjection(store, { ...state, title: 'newest' }, 3);
    const changed = await store.change(created, { ...state, title: 'second' }, facts('edit', null, null));
    expect(changed.version).to.equal(2);
    await store.settled(); // the lookup runs right after the answer
    expect(await projectionOf(db, 'after_write', state.campaignId)).to.deep.include({ version: 3, title: 'newest' });
  });

  it('reads the projection alone: a change from it that missed a newer entry fails and rolls the projection forward', async () => {
    const store = storeOf('projection_alone');
    const state = campaign(nextId++);
    await store.create(state.campaignId, state, facts('submit', null, 'submitted'));
    await entryWithoutProjection(store, { ...state, title: 'from history' }, 2);
    const stale = await store.loadProjection(state.campaignId);
    expect(stale?.version).to.equal(1);
    let failure: unknown;
    await store.change(stale as Current<Campaign>, { ...state, title: 'late' }, facts('edit', null, null)).catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(ConcurrentChangeError);
    expect(await store.loadProjection(state.campaignId)).to.deep.include({ version: 2, title: 'from history' });
    expect(await store.loadProjection(999_999)).to.equal(null);
  });

  it('loads a change whose process died between the history insert and the projection write, keeping createdAt', async () => {
    const store = storeOf('died');
    const state = campaign(nextId++);
    const created = await store.create(state.campaignId, state, facts('submit', null, 'submitted'));
    const next = { ...state, status: 'active' as const };
    await entryWithoutProjection(store, next, 2, new Date('2026-02-03T00:00:00Z'));
    expect((await projectionOf(db, 'died', state.campaignId))?.version).to.equal(1);

    const loaded = await store.load(state.campaignId);
    expect(loaded).to.deep.include({ version: 2, status: 'active' });
    expect(loaded?.createdAt.toISOString()).to.equal(created.createdAt.toISOString());
    expect(loaded?.updatedAt.toISOString()).to.equal('2026-02-03T00:00:00.000Z');
    expect(await projectionOf(db, 'died', state.campaignId)).to.deep.include({ version: 2, status: 'active' });
    expect((await store.change(loaded as Current<Campaign>, { ...next, status: 'paused' }, facts('pause', 'active', 'paused'))).version).to.equal(3);
  });

  it('loads a record whose very first projection was never written, with createdAt from its first entry; nothing for an unknown id', async () => {
    const store = storeOf('first_missing');
    const state = campaign(nextId++);
    await entryWithoutProjection(store, state, 1, new Date('2026-01-05T00:00:00Z'));
    await entryWithoutProjection(store, { ...state, title: 'second' }, 2, new Date('2026-01-06T00:00:00Z'));
    const loaded = await store.load(state.campaignId);
    expect(loaded).to.deep.include({ version: 2, title: 'second' });
    expect(loaded?.createdAt.toISOString()).to.equal('2026-01-05T00:00:00.000Z');
    expect(await store.load(999_999)).to.equal(null);
  });

  it('rolls the projection forward when a create collides with a first version whose writer died', async () => {
    const store = storeOf('collide');
    const state = campaign(nextId++);
    await entryWithoutProjection(store, { ...state, title: 'created by a process that died' }, 1);
    let failure: unknown;
    await store.create(state.campaignId, { ...state, title: 'second create' }, facts('submit', null, 'submitted')).catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(ConcurrentChangeError);
    expect(await store.loadProjection(state.campaignId)).to.deep.include({ version: 1, title: 'created by a process that died' });
  });

  it('keeps the entry of a write that an older write overtook pending until its writer saw the newer entry', async () => {
    // Writer A's projection write waits at a gate, so writer B moves the record on meanwhile.
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const writerA = storeOf('crossing', {}, gated(db, 'replaceOne', gate));
    const writerB = storeOf('crossing');

    const created = await writerB.create(7, campaign(7), facts('submit', null, 'submitted'));
    const changeA = writerA.change(created, { ...campaign(7), title: 'A' }, facts('edit', null, null));
    let read: Current<Campaign> | null = null;
    for (let attempt = 0; attempt < 50 && read?.version !== 2; attempt += 1) read = await writerB.load(7);
    expect(read?.version).to.equal(2);
    await writerB.change(read as Current<Campaign>, { ...campaign(7), title: 'B' }, facts('edit', null, null));
    expect(await projectionOf(db, 'crossing', 7)).to.deep.include({ version: 3, title: 'B' });

    openGate(); // A's version 2 lands on top of B's version 3; A's lookup after it sees version 3 and rolls forward
    expect(await changeA).to.deep.include({ version: 2, title: 'A' });
    await writerA.settled();
    expect(await projectionOf(db, 'crossing', 7)).to.deep.include({ version: 3, title: 'B' });
    expect(await isPending(writerB, '7:2'), 'A had no events to publish: finished after its lookup').to.equal(false);
  });

  it('ends with the newest projection of every record after concurrent writers from two stores', async function () {
    this.timeout(60_000);
    const stores = [storeOf('racing'), storeOf('racing')];
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
    await Promise.all(stores.map((store) => store.settled()));
    for (const id of ids) {
      const newest = await db.collection('racing_history').findOne({ _id: `${id}:11` as never });
      expect(newest, `campaign ${id} has 11 versions`).to.not.equal(null);
      expect(await projectionOf(db, 'racing', id)).to.deep.include({ version: 11, title: (newest?.state as Campaign).title });
    }
  });

  it('lists current records with a filter, order and fields, and walks them all in id order', async () => {
    const store = storeOf('lists');
    for (const id of [5, 3, 9, 1, 7]) await store.create(id, { ...campaign(id), status: id % 2 === 0 ? 'active' : 'submitted', title: `t${id}` }, facts('submit', null, 'submitted'));
    const found = await store.findCurrent({ status: 'submitted' }, { sort: { _id: -1 }, limit: 2, projection: { title: 1 } });
    expect(found).to.deep.equal([
      { _id: 9, title: 't9' },
      { _id: 7, title: 't7' },
    ]);
    const walked: number[][] = [];
    for await (const batch of store.currentInBatches(2)) walked.push(batch.map((record) => Number(record._id)));
    expect(walked).to.deep.equal([[1, 3], [5, 7], [9]]);
  });
});

describe('VersionedStore pages (real FerretDB)', () => {
  const infra = testInfra();
  const dbName = `versioned_store_pages_${infra.runId}`;
  let client: MongoClient;
  let db: Db;

  before(async () => {
    client = await MongoClient.connect(infra.mongoUrl, { retryWrites: false });
    db = client.db(dbName);
  });
  after(async () => {
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  });

  it('pages current records newest first, ties by id, from a position on', async () => {
    const store = new VersionedStore<Campaign>(db, 'campaign', 'paged', 'paged_history');
    const sameInstant = new Date('2026-03-01T00:00:00Z');
    // Three records created at the same instant, two later and one earlier.
    const created: Array<[number, Date]> = [[4, sameInstant], [2, sameInstant], [9, sameInstant], [1, new Date('2026-03-02T00:00:00Z')], [3, new Date('2026-03-03T00:00:00Z')], [8, new Date('2026-02-01T00:00:00Z')]];
    for (const [id, at] of created) await store.create(id, campaign(id), facts('submit', null, 'submitted', at));
    const ids: number[] = [];
    let after: readonly [Date, number] | null = null;
    for (let pages = 0; pages < 10; pages += 1) {
      const page: Current<Campaign>[] = await store.currentPage({}, after, 2);
      ids.push(...page.map((record) => Number(record._id)));
      const last = page[page.length - 1];
      if (page.length < 2 || !last) break;
      after = [last.createdAt, Number(last._id)];
    }
    expect(ids).to.deep.equal([3, 1, 9, 4, 2, 8]);
    expect((await store.currentPage({ ownerAccountId: '501' }, [sameInstant, 4], 10)).map((record) => record._id)).to.deep.equal([2, 8]);
  });

  it('pages the history in the audit order (newest first, ties by entry id) from a position on, without events', async () => {
    const store = new VersionedStore<Campaign>(db, 'campaign', 'audited', 'audited_history');
    const at = new Date('2026-04-01T00:00:00Z');
    for (const id of [1, 2, 3]) await store.create(id, campaign(id), facts('submit', null, 'submitted', at), [campaignEvent(campaign(id), 1)]);
    const newest = await store.historyPage({}, null, 10);
    expect(newest.map((entry) => entry._id)).to.deep.equal(['3:1', '2:1', '1:1']);
    expect(newest[0]).to.not.have.property('outbox');
    expect((await store.historyPage({}, [at, 'campaign/3:1'], 10)).map((entry) => entry._id)).to.deep.equal(['2:1', '1:1']);
    // A position of another entity at the same instant: its key sorts after every campaign's ('placement/…' > 'campaign/…'), so all come after it.
    expect(await store.historyPage({}, [at, 'placement/top:1'], 10)).to.have.length(3);
    expect(await store.historyPage({}, [at, 'account/x'], 10)).to.have.length(0);
  });
});

/** `db` whose collections wait for `gate` before every call of `method` (a projection write or a lookup slowed down). */
function gated(db: Db, method: 'replaceOne' | 'find', gate: Promise<void>): Db {
  return new Proxy(db, {
    get(target, property, receiver) {
      if (property !== 'collection') return Reflect.get(target, property, receiver) as unknown;
      return (name: string) => {
        const collection = target.collection(name);
        return new Proxy(collection, {
          get(inner: Collection, key, innerReceiver) {
            const value = Reflect.get(inner, key, innerReceiver) as unknown;
            if (key !== method || typeof value !== 'function') return typeof value === 'function' ? value.bind(inner) : value;
            if (method === 'find') {
              // A cursor is returned at once; its read waits at the gate.
              return (...args: unknown[]) => {
                const cursor = (value as (...methodArgs: unknown[]) => FindCursor).apply(inner, args);
                const read = cursor.toArray.bind(cursor);
                cursor.toArray = async () => {
                  await gate;
                  return read();
                };
                return cursor;
              };
            }
            return async (...args: unknown[]) => {
              await gate;
              return (value as (...methodArgs: unknown[]) => unknown).apply(inner, args);
            };
          },
        });
      };
    },
  });
}
