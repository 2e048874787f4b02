import { CAMPAIGN_ACTIVATED, CAMPAIGN_SUBMITTED, type KnownEvent } from '@pilot/contracts';
import { testInfra, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { MongoClient, type Collection, type Db } from 'mongodb';
import { ConcurrentChangeError, VersionedStore, type Current, type HistoryEntry } from '../../src';
import { campaign, campaignEvent, facts, isPending, projectionOf, writtenByDeadWriter, type Campaign } from './support';

describe('VersionedStore (real FerretDB)', () => {
  const infra = testInfra();
  const dbName = `versioned_store_${infra.runId}`;
  let client: MongoClient;
  let db: Db;
  let nextId = 1;

  const storeOf = (base: string, options: ConstructorParameters<typeof VersionedStore>[4] = {}, database: Db = db) =>
    new VersionedStore<Campaign>(database, 'campaign', base, `${base}_history`, options);
  /** A client whose store commands are recorded by name, in order. */
  const watchedClient = async (names: string[], commands: string[]) => {
    const watched = await MongoClient.connect(infra.mongoUrl, { retryWrites: false, monitorCommands: true });
    watched.on('commandStarted', (started) => {
      if (names.includes(started.commandName)) commands.push(started.commandName);
    });
    return watched;
  };

  before(async () => {
    client = await MongoClient.connect(infra.mongoUrl, { retryWrites: false });
    db = client.db(dbName);
  });
  after(async () => {
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  });

  it('keeps each kind of record in two collections: the records under their own ids, and the history', async () => {
    const store = storeOf('two');
    await store.ensureIndexes();
    await store.createCurrentIndex({ ownerAccountId: 1 });
    for (const id of [1, 300, 70_000]) await store.create(id, campaign(id), facts('submit', null, 'submitted'));
    await store.settled();
    const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((found) => found.name).filter((name) => name.startsWith('two'));
    expect(names).to.have.members(['two', 'two_history']);
    expect((await db.collection('two').find({}).sort({ _id: 1 }).toArray()).map((record) => record._id)).to.deep.equal([1, 300, 70_000]);
    const historyIndexes = (await store.history.indexes()).map((index) => JSON.stringify(index.key));
    expect(historyIndexes).to.include.members(['{"entityId":1,"at":-1,"_id":-1}', '{"ownerAccountId":1,"at":-1,"_id":-1}', '{"action":1,"at":-1,"_id":-1}', '{"ownerAccountId":1,"action":1,"at":-1,"_id":-1}', '{"at":-1,"_id":-1}']);
    expect((await store.current.indexes()).map((index) => JSON.stringify(index.key))).to.include.members(['{"ownerAccountId":1}', '{"pendingSince":1}']);
  });

  it('creates version 1 as one document holding the state and the pending change, and writes its history entry', async () => {
    const store = storeOf('create');
    const state = campaign(nextId++);
    const event = campaignEvent(state, 1);
    const created = await store.create(state.campaignId, state, facts('submit', 'draft', 'submitted'), [event]);
    await store.settled();
    expect(created).to.include({ _id: state.campaignId, version: 1, status: 'submitted' });
    const entry = (await store.history.findOne({ _id: `${state.campaignId}:1` })) as HistoryEntry<Campaign>;
    expect(entry).to.include({ entity: 'campaign', entityId: state.campaignId, version: 1, ownerAccountId: '501', action: 'submit', from: 'draft', to: 'submitted', reason: null });
    expect(entry.state).to.deep.equal(state);
    expect(entry.outbox).to.deep.equal([event]);
    expect(entry).to.not.have.property('pendingSince');
    expect(await isPending(store, entry._id), 'no publisher: the events wait for the relay').to.equal(true);
    const stored = await projectionOf(db, 'create', state.campaignId);
    expect(stored).to.deep.include({ _id: state.campaignId, version: 1, title: state.title });
    expect(stored?.pending).to.deep.equal([{ version: 1, ...facts('submit', 'draft', 'submitted'), reason: null, state, events: [event] }]);
    expect(stored?.pendingSince).to.be.instanceOf(Date);
    expect(await store.load(state.campaignId), 'loaded without the outbox fields').to.deep.equal(created);
  });

  it('changes a record with two store commands on the answer path, and writes its history entry and removes the pending change after it', async () => {
    const published: KnownEvent[] = [];
    const commands: string[] = [];
    const watched = await watchedClient(['find', 'insert', 'update', 'delete', 'findAndModify'], commands);
    try {
      const store = storeOf('counted', { publish: async (events) => void published.push(...events) }, watched.db(dbName));
      const state = campaign(nextId++);
      await store.create(state.campaignId, state, facts('submit', 'draft', 'submitted'), [campaignEvent(state, 1)]);
      await store.settled();
      commands.length = 0;
      const active = { ...state, status: 'active' as const };
      const read = (await store.load(state.campaignId)) as Current<Campaign>;
      const { changed, published: onTheBus } = await store.changeAndPublish(read, active, facts('activate', 'submitted', 'active'), [campaignEvent(active, 2)]);
      expect(onTheBus).to.equal(true);
      expect(changed).to.include({ version: 2, status: 'active' });
      expect(commands, 'the answer path: the read, the guarded write').to.deep.equal(['find', 'findAndModify']);
      await store.settled();
      expect(commands, 'after the answer: the history entry, the removal of the finished change').to.deep.equal(['find', 'findAndModify', 'insert', 'update']);
      expect(await store.history.countDocuments({ _id: `${state.campaignId}:2` })).to.equal(1);
      expect(published.map((event) => [event.type, event.aggregateVersion])).to.deep.equal([
        [CAMPAIGN_SUBMITTED, 1],
        [CAMPAIGN_ACTIVATED, 2],
      ]);
      expect(await isPending(store, `${state.campaignId}:2`)).to.equal(false);
      expect(await projectionOf(db, 'counted', state.campaignId)).to.not.have.any.keys('pending', 'pendingSince');
    } finally {
      await watched.close();
    }
  });

  it('reads its own changes in the audit right after their answers', async () => {
    const store = storeOf('read_own', { publish: async () => undefined });
    const state = campaign(nextId++);
    const created = await store.create(state.campaignId, state, facts('submit', null, 'submitted'), [campaignEvent(state, 1)]);
    const active = { ...state, status: 'active' as const };
    await store.change(created, active, facts('activate', 'submitted', 'active'), [campaignEvent(active, 2)]);
    const audit = await store.historyPage({ entityId: state.campaignId }, null, 10);
    expect(audit.map((entry) => entry._id)).to.have.members([`${state.campaignId}:1`, `${state.campaignId}:2`]);
    await store.settled();
  });

  it('answers a change before the removal of its pending change', async () => {
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const published: KnownEvent[] = [];
    const store = storeOf('answer_first', { publish: async (events) => void published.push(...events) }, gated(db, 'updateOne', gate));
    const state = campaign(nextId++);
    const changed = await store.create(state.campaignId, state, facts('submit', 'draft', 'submitted'), [campaignEvent(state, 1)]);
    expect(changed.version).to.equal(1);
    expect(published).to.have.length(1);
    await waitFor(async () => (await store.history.countDocuments({ _id: `${state.campaignId}:1` })) === 1, { message: 'the history entry, after the answer' });
    expect(await isPending(store, `${state.campaignId}:1`), 'the removal waits at the gate').to.equal(true);
    openGate();
    await store.settled();
    expect(await isPending(store, `${state.campaignId}:1`)).to.equal(false);
  });

  it('publishes a change once when the next change is written before its removal, and the removal ends in between', async () => {
    // The order that published version 2 twice: version 3's write lands, version 2's removal then finds
    // the document changed and ends, and only then does version 3's finish look at what was published.
    let nextLanded!: () => void;
    const nextWritten = new Promise<void>((resolve) => (nextLanded = resolve));
    let earlierEnded!: () => void;
    const earlierRemovalEnded = new Promise<void>((resolve) => (earlierEnded = resolve));
    const fromVersion2 = (args: unknown[]) => (args[0] as { version?: number }).version === 2;
    const ordered = intercepted(db, ['updateOne', 'findOneAndUpdate'], async (method, args, call) => {
      if (method === 'updateOne' && fromVersion2(args)) {
        await nextWritten;
        return call().finally(earlierEnded);
      }
      if (!fromVersion2(args)) return call();
      const result = await call();
      nextLanded();
      await earlierRemovalEnded;
      await new Promise((resolve) => setImmediate(resolve)); // what the removal does once it has its answer
      return result;
    });
    const published: KnownEvent[] = [];
    const store = storeOf('removal_in_between', { publish: async (events) => void published.push(...events) }, ordered);
    const state = campaign(nextId++);
    const created = await store.create(state.campaignId, state, facts('submit', null, 'submitted'));
    await store.settled();
    const active = { ...state, status: 'active' as const };
    const activated = await store.change(created, active, facts('activate', 'submitted', 'active'), [campaignEvent(active, 2)]);
    const paused = { ...active, status: 'paused' as const };
    await store.change(activated, paused, facts('pause', 'active', 'paused'), [campaignEvent(paused, 3)]);
    await store.settled();
    expect(published.map((event) => event.aggregateVersion)).to.deep.equal([2, 3]);
    expect(await isPending(store, `${state.campaignId}:2`)).to.equal(false);
    expect(await isPending(store, `${state.campaignId}:3`)).to.equal(false);
  });

  it('forgets what it published of records whose removals failed once it remembers too many, and then publishes their pending changes again', async () => {
    const removalsFail = intercepted(db, ['updateOne'], async (_method, args, call) => {
      if ((args[0] as { version?: number }).version === 2) throw new Error('the store went away');
      return call();
    });
    const publishedOf = async (rememberedRecords: number) => {
      const published: KnownEvent[] = [];
      const store = storeOf(`remembered_${rememberedRecords}`, { publish: async (events) => void published.push(...events), rememberedRecords }, removalsFail);
      const states = [campaign(nextId++), campaign(nextId++), campaign(nextId++)];
      const activated: Array<Current<Campaign>> = [];
      for (const state of states) {
        const created = await store.create(state.campaignId, state, facts('submit', null, 'submitted'));
        const active = { ...state, status: 'active' as const };
        activated.push(await store.change(created, active, facts('activate', 'submitted', 'active'), [campaignEvent(active, 2)]));
        await store.settled();
      }
      expect(await isPending(store, `${states[0]!.campaignId}:2`), 'the failed removal left the change pending').to.equal(true);
      const paused = { ...activated[0]!, status: 'paused' as const };
      await store.change(activated[0]!, paused, facts('pause', 'active', 'paused'), [campaignEvent(paused, 3)]);
      await store.settled();
      return published.filter((event) => event.aggregateId === String(states[0]!.campaignId)).map((event) => event.aggregateVersion);
    };
    expect(await publishedOf(10), 'remembered: published once').to.deep.equal([2, 3]);
    expect(await publishedOf(2), 'forgotten at the third record: published again with the next change').to.deep.equal([2, 2, 3]);
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
    expect(await store.history.countDocuments({ _id: `${state.campaignId}:2` }), 'the audit is written all the same').to.equal(1);
    expect(await store.load(state.campaignId)).to.deep.include({ version: 2, status: 'active' });
  });

  it('refuses to create a record whose id exists', async () => {
    const store = storeOf('refuse');
    const state = campaign(nextId++);
    await store.create(state.campaignId, state, facts('submit', null, 'submitted'));
    let failure: unknown;
    await store.create(state.campaignId, state, facts('submit', null, 'submitted')).catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(ConcurrentChangeError);
  });

  it('changes a record to the next version, keeping createdAt, dropping the fields the new state has not, and recording the change', async () => {
    const store = storeOf('change');
    const state = { ...campaign(nextId++), imageUrl: 'https://example.org/a.png' };
    const created = await store.create(state.campaignId, state, facts('submit', null, 'submitted', new Date('2026-02-01T10:00:00Z')));
    const { imageUrl: _dropped, ...withoutImage } = state;
    const next = { ...withoutImage, status: 'active' as const } as Campaign;
    const changed = await store.change(created, next, { ...facts('activate', 'submitted', 'active', new Date('2026-02-02T10:00:00Z')), reason: 'go' }, [campaignEvent(next, 2)]);
    expect(changed).to.include({ version: 2, status: 'active' });
    expect(changed.createdAt.toISOString()).to.equal('2026-02-01T10:00:00.000Z');
    expect(changed.updatedAt.toISOString()).to.equal('2026-02-02T10:00:00.000Z');
    const loaded = await store.load(state.campaignId);
    expect(loaded).to.deep.include({ version: 2, status: 'active' });
    expect(loaded).to.not.have.property('imageUrl');
    await store.settled(); // the history entries are written after the answers
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
    await store.settled();
    const won = attempts.filter((attempt) => attempt.status === 'fulfilled') as PromiseFulfilledResult<Current<Campaign>>[];
    const lost = attempts.filter((attempt) => attempt.status === 'rejected') as PromiseRejectedResult[];
    expect(won).to.have.length(1);
    expect(lost).to.have.length(7);
    for (const attempt of lost) expect(attempt.reason).to.be.instanceOf(ConcurrentChangeError);
    expect(await store.load(state.campaignId)).to.deep.include({ version: 2, title: won[0]?.value.title });
    expect(await store.history.countDocuments({ entityId: state.campaignId })).to.equal(2);
  });

  it('refuses a change made from a stale version, and one of a record that does not exist', async () => {
    const store = storeOf('stale');
    const state = campaign(nextId++);
    const created = await store.create(state.campaignId, state, facts('submit', null, 'submitted'));
    await store.change(created, { ...state, title: 'first' }, facts('edit', null, null));
    let failure: unknown;
    await store.change(created, { ...state, title: 'stale' }, facts('edit', null, null)).catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(ConcurrentChangeError);
    expect((await store.load(state.campaignId))?.title).to.equal('first');
    failure = undefined;
    await store.change({ ...created, _id: 999_999 }, state, facts('edit', null, null)).catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(ConcurrentChangeError);
    expect(await store.load(999_999)).to.equal(null);
  });

  it('finishes, with its own change, the change of a writer that died after its guarded write: history once, events in version order', async () => {
    const published: KnownEvent[] = [];
    const store = storeOf('died', { publish: async (events) => void published.push(...events) });
    const state = campaign(nextId++);
    const created = await store.create(state.campaignId, state, facts('submit', null, 'submitted', new Date('2026-02-01T00:00:00Z')));
    await store.settled();
    const active = { ...state, status: 'active' as const };
    await writtenByDeadWriter(store, created, active, facts('activate', 'submitted', 'active', new Date('2026-02-03T00:00:00Z')));
    expect(await store.history.countDocuments({ entityId: state.campaignId }), 'the dead writer wrote no history').to.equal(1);

    const loaded = (await store.load(state.campaignId)) as Current<Campaign>;
    expect(loaded).to.deep.include({ version: 2, status: 'active' });
    expect(loaded.createdAt.toISOString()).to.equal('2026-02-01T00:00:00.000Z');
    const paused = { ...active, status: 'paused' as const };
    expect((await store.change(loaded, paused, facts('pause', 'active', 'paused'), [campaignEvent(paused, 3)])).version).to.equal(3);
    await store.settled();
    expect((await store.history.find({ entityId: state.campaignId }).sort({ version: 1 }).toArray()).map((entry) => entry.action)).to.deep.equal(['submit', 'activate', 'pause']);
    expect(published.map((event) => event.aggregateVersion)).to.deep.equal([2, 3]);
    expect(await isPending(store, `${state.campaignId}:2`)).to.equal(false);
    expect(await isPending(store, `${state.campaignId}:3`)).to.equal(false);
  });

  it('ends with the newest state and every history entry after concurrent writers from two stores, nothing left pending', async function () {
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
      expect(await db.collection('racing_history').countDocuments({ entityId: id }), `campaign ${id} has 11 versions`).to.equal(11);
      const newest = await db.collection('racing_history').findOne({ _id: `${id}:11` as never });
      const stored = await projectionOf(db, 'racing', id);
      expect(stored).to.deep.include({ version: 11, title: (newest?.state as Campaign).title });
      expect(stored).to.not.have.property('pending');
    }
  });

  it('lists records with a filter, order and fields, and walks them all in id order, without their outbox fields', async () => {
    const store = storeOf('lists');
    for (const id of [5, 3, 9, 1, 7]) await store.create(id, { ...campaign(id), status: id % 2 === 0 ? 'active' : 'submitted', title: `t${id}` }, facts('submit', null, 'submitted'), [campaignEvent(campaign(id), 1)]);
    const found = await store.findCurrent({ status: 'submitted' }, { sort: { _id: -1 }, limit: 2, projection: { title: 1 } });
    expect(found).to.deep.equal([
      { _id: 9, title: 't9' },
      { _id: 7, title: 't7' },
    ]);
    expect((await store.findCurrent({ _id: 1 as never }))[0]).to.not.have.any.keys('pending', 'pendingSince');
    const walked: number[][] = [];
    for await (const batch of store.currentInBatches(2)) {
      for (const record of batch) expect(record).to.not.have.any.keys('pending', 'pendingSince');
      walked.push(batch.map((record) => Number(record._id)));
    }
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

/** `db` whose collections pass every call of `methods` through `intercept`, which makes the call when it chooses. */
function intercepted(db: Db, methods: string[], intercept: (method: string, args: unknown[], call: () => Promise<unknown>) => Promise<unknown>): Db {
  return new Proxy(db, {
    get(target, property, receiver) {
      if (property !== 'collection') return Reflect.get(target, property, receiver) as unknown;
      return (name: string) => {
        const collection = target.collection(name);
        return new Proxy(collection, {
          get(inner: Collection, key, innerReceiver) {
            const value = Reflect.get(inner, key, innerReceiver) as unknown;
            if (typeof value !== 'function') return value;
            if (typeof key !== 'string' || !methods.includes(key)) return value.bind(inner) as unknown;
            return (...args: unknown[]) => intercept(String(key), args, () => (value as (...methodArgs: unknown[]) => Promise<unknown>).apply(inner, args));
          },
        });
      };
    },
  });
}

/** `db` whose collections wait for `gate` before every call of `method` (a write slowed down). */
function gated(db: Db, method: 'updateOne', gate: Promise<void>): Db {
  return intercepted(db, [method], async (_method, _args, call) => {
    await gate;
    return call();
  });
}
