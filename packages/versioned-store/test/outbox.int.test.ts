import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Bus } from '@pilot/bus';
import { CAMPAIGN_ACTIVATED, CAMPAIGN_SUBMITTED, type KnownEvent } from '@pilot/contracts';
import { createLogger } from '@pilot/logging';
import { deliveredSoFar, testInfra, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { MongoClient, type Db } from 'mongodb';
import { OutboxRelay } from '@pilot/outbox';
import { ConcurrentChangeError, VersionedStore, type Current, type HistoryEntry } from '../src';
import { campaign, campaignEvent, facts, isMarkedPending, projectionOf, type Campaign } from './support';

const logger = createLogger({ service: 'outbox-test', level: 'silent' });

describe('outbox (real FerretDB and RabbitMQ)', () => {
  const infra = testInfra();
  const dbName = `outbox_pkg_${infra.runId}`;
  let client: MongoClient;
  let db: Db;
  let nextId = 1;
  const buses: Bus[] = [];
  const relays: OutboxRelay[] = [];
  const children: ChildProcess[] = [];

  const newStore = (suffix = '') => new VersionedStore<Campaign>(db, 'campaign', `campaigns${suffix}`, `campaign_history${suffix}`);
  const newBus = async (url = infra.amqpUrl) => {
    const bus = new Bus({ url, exchange: infra.exchange, logger, publishTimeoutMs: 5000 });
    buses.push(bus);
    if (url === infra.amqpUrl) await bus.ready();
    return bus;
  };
  const newRelay = (bus: Bus, store: VersionedStore<Campaign>) => {
    const relay = new OutboxRelay({ bus, queues: () => [store.outbox()], logger, intervalMs: 100 });
    relays.push(relay);
    return relay;
  };
  /** A durable consumer of campaign events, recording each delivery (duplicates included). */
  const consumer = async (name: string) => {
    const received: KnownEvent[] = [];
    const bus = await newBus();
    await bus.subscribeDurable({ name, eventTypes: [CAMPAIGN_SUBMITTED, CAMPAIGN_ACTIVATED], handler: async (event) => void received.push(event) });
    return received;
  };
  /** Everything published so far has reached `received` (a duplicate would have). */
  const settle = async (received: KnownEvent[]) => {
    const bus = await newBus();
    await deliveredSoFar(received, campaignEvent(campaign(nextId++), 1), (marker) => bus.publish(marker));
  };

  const entryOf = (state: Campaign, version: number, changeFacts: ReturnType<typeof facts>) => ({
    _id: VersionedStore.entryId(state.campaignId, version),
    entity: 'campaign',
    entityId: state.campaignId,
    version,
    ownerAccountId: '501',
    ...changeFacts,
    reason: null,
    state,
    outbox: [],
  });
  /** A history entry and its recent copy as another writer, or a process that died, left them: no projection written after them. */
  const entryWithoutProjection = async (store: VersionedStore<Campaign>, state: Campaign, version: number, changeFacts: ReturnType<typeof facts>) => {
    const entry = entryOf(state, version, changeFacts);
    await store.history.insertOne(entry as never);
    await db.collection(`${store.history.collectionName}_recent`).insertOne({ ...entry, copiedAt: new Date() } as never);
  };
  /** A history entry as a process that died right after inserting it left it: no recent copy, no projection. */
  const entryWithoutCopy = (store: VersionedStore<Campaign>, state: Campaign, version: number, changeFacts: ReturnType<typeof facts>) =>
    store.history.insertOne(entryOf(state, version, changeFacts) as never);

  before(async () => {
    client = await MongoClient.connect(infra.mongoUrl, { retryWrites: false });
    db = client.db(dbName);
  });
  after(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await Promise.all(relays.map((relay) => relay.stop()));
    await Promise.all(buses.map((bus) => bus.close()));
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  });

  describe('VersionedStore', () => {
    it('creates version 1 as a history entry carrying state, audit facts and pending events, plus the projection', async () => {
      const store = newStore();
      const state = campaign(nextId++);
      const event = campaignEvent(state, 1);
      const created = await store.create(state.campaignId, state, facts('submit', 'draft', 'submitted'), [event]);
      expect(created).to.include({ _id: state.campaignId, version: 1, status: 'submitted' });
      const entry = (await store.history.findOne({ _id: `${state.campaignId}:1` as never })) as unknown as HistoryEntry<Campaign>;
      expect(entry).to.include({ entity: 'campaign', entityId: state.campaignId, version: 1, ownerAccountId: '501', action: 'submit', from: 'draft', to: 'submitted', reason: null });
      expect(await isMarkedPending(store, entry._id)).to.equal(true);
      expect(entry.state).to.deep.equal(state);
      expect(entry.outbox).to.deep.equal([event]);
      expect(await store.load(state.campaignId)).to.deep.equal(created);
    });

    it('refuses to create a record whose id exists', async () => {
      const store = newStore();
      const state = campaign(nextId++);
      await store.create(state.campaignId, state, facts('submit', null, 'submitted'));
      let failure: unknown;
      await store.create(state.campaignId, state, facts('submit', null, 'submitted')).catch((error: unknown) => (failure = error));
      expect(failure).to.be.instanceOf(ConcurrentChangeError);
    });

    it('changes a record to the next version, keeping createdAt and recording the change', async () => {
      const store = newStore();
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
      const store = newStore();
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
      const current = await store.load(state.campaignId);
      expect(current).to.deep.include({ version: 2, title: won[0]?.value.title });
      expect(await store.history.countDocuments({ entityId: state.campaignId })).to.equal(2);
    });

    it('refuses a change made from a stale version', async () => {
      const store = newStore();
      const state = campaign(nextId++);
      const created = await store.create(state.campaignId, state, facts('submit', null, 'submitted'));
      await store.change(created, { ...state, title: 'first' }, facts('edit', null, null));
      let failure: unknown;
      await store.change(created, { ...state, title: 'stale' }, facts('edit', null, null)).catch((error: unknown) => (failure = error));
      expect(failure).to.be.instanceOf(ConcurrentChangeError);
      expect((await store.load(state.campaignId))?.title).to.equal('first');
    });

    it('runs what goes alongside a change once its entry is recorded, and never for a change that lost', async () => {
      const store = newStore();
      const state = campaign(nextId++);
      const created = await store.create(state.campaignId, state, facts('submit', null, 'submitted'));
      const { changed, alongside } = await store.changeAlongside(created, { ...state, title: 'won' }, facts('edit', null, null), [], async () =>
        store.history.findOne({ _id: `${state.campaignId}:2` as never }),
      );
      expect(changed.version).to.equal(2);
      expect(alongside?.state.title).to.equal('won');
      let ran = false;
      let failure: unknown;
      await store
        .changeAlongside(created, { ...state, title: 'lost' }, facts('edit', null, null), [], async () => {
          ran = true;
        })
        .catch((error: unknown) => (failure = error));
      expect(failure).to.be.instanceOf(ConcurrentChangeError);
      expect(ran).to.equal(false);
    });

    it('rolls a projection forward after the write, without the writer waiting, when the next version has an entry', async () => {
      const store = newStore();
      const state = campaign(nextId++);
      const created = await store.create(state.campaignId, state, facts('submit', null, 'submitted'));
      await store.settled();
      // Another writer's entry for version 3, whose projection has not landed: the check after version 2's write finds it.
      await entryWithoutProjection(store, { ...state, title: 'newest' }, 3, facts('edit', null, null));
      const changed = await store.change(created, { ...state, title: 'second' }, facts('edit', null, null));
      expect(changed.version).to.equal(2);
      await store.settled();
      expect(await projectionOf(db, 'campaigns', state.campaignId)).to.deep.include({ version: 3, title: 'newest' });
    });

    it('reads the projection alone: a change from it that missed a newer entry fails and rolls the projection forward', async () => {
      const store = newStore();
      const state = campaign(nextId++);
      await store.create(state.campaignId, state, facts('submit', null, 'submitted'));
      await entryWithoutProjection(store, { ...state, title: 'from history' }, 2, facts('edit', null, null));
      const stale = await store.loadProjection(state.campaignId);
      expect(stale?.version).to.equal(1);
      let failure: unknown;
      await store.change(stale as Current<Campaign>, { ...state, title: 'late' }, facts('edit', null, null)).catch((error: unknown) => (failure = error));
      expect(failure).to.be.instanceOf(ConcurrentChangeError);
      expect(await store.loadProjection(state.campaignId)).to.deep.include({ version: 2, title: 'from history' });
      expect(await store.loadProjection(999_999)).to.equal(null);
    });

    it('rolls the projection forward when a process died between the history insert and the projection write', async () => {
      const store = newStore();
      const state = campaign(nextId++);
      const created = await store.create(state.campaignId, state, facts('submit', null, 'submitted'));
      // The dead process got as far as its history entry for version 2, never to the projection.
      const next = { ...state, status: 'active' as const };
      await entryWithoutProjection(store, next, 2, facts('activate', 'submitted', 'active', new Date('2026-02-03T00:00:00Z')));
      expect((await projectionOf(db, 'campaigns', state.campaignId))?.version).to.equal(1);

      const loaded = await store.load(state.campaignId);
      expect(loaded).to.deep.include({ version: 2, status: 'active' });
      expect(loaded?.createdAt.toISOString()).to.equal(created.createdAt.toISOString());
      expect(loaded?.updatedAt.toISOString()).to.equal('2026-02-03T00:00:00.000Z');
      expect(await projectionOf(db, 'campaigns', state.campaignId)).to.deep.include({ version: 2, status: 'active' });

      const changed = await store.change(loaded as Current<Campaign>, { ...next, status: 'paused' }, facts('pause', 'active', 'paused'));
      expect(changed.version).to.equal(3);
    });

    it('leaves a change that died before its recent copy to the next change of the record, which reads it from the history', async () => {
      const store = newStore();
      const state = campaign(nextId++);
      const created = await store.create(state.campaignId, state, facts('submit', null, 'submitted'));
      await entryWithoutCopy(store, { ...state, title: 'died before its copy' }, 2, facts('edit', null, null));
      // load() looks in the recent copies only: the repairs and a collision read the history.
      expect(await store.load(state.campaignId)).to.deep.include({ version: 1, title: state.title });
      let failure: unknown;
      await store.change(created, { ...state, title: 'late' }, facts('edit', null, null)).catch((error: unknown) => (failure = error));
      expect(failure).to.be.instanceOf(ConcurrentChangeError);
      expect(await store.loadProjection(state.campaignId)).to.deep.include({ version: 2, title: 'died before its copy' });

      const repaired = campaign(nextId++);
      await store.create(repaired.campaignId, repaired, facts('submit', null, 'submitted'));
      await entryWithoutCopy(store, { ...repaired, title: 'found by the repair' }, 2, facts('edit', null, null));
      expect(await store.loadThrough(repaired.campaignId, 2)).to.deep.include({ version: 2, title: 'found by the repair' });
      expect(await projectionOf(db, 'campaigns', repaired.campaignId)).to.deep.include({ version: 2 });
    });

    it('rolls the projection forward when a create collides with a first version that has no copy', async () => {
      const store = newStore();
      const state = campaign(nextId++);
      await entryWithoutCopy(store, { ...state, title: 'created by a process that died' }, 1, facts('submit', null, 'submitted'));
      let failure: unknown;
      await store.create(state.campaignId, { ...state, title: 'second create' }, facts('submit', null, 'submitted')).catch((error: unknown) => (failure = error));
      expect(failure).to.be.instanceOf(ConcurrentChangeError);
      expect(await store.loadProjection(state.campaignId)).to.deep.include({ version: 1, title: 'created by a process that died' });
    });

    it('rolls forward every record whose projection is behind its history or missing, reading the history once', async () => {
      const store = newStore('_stale');
      const behind = campaign(nextId++);
      const created = await store.create(behind.campaignId, behind, facts('submit', null, 'submitted'));
      await entryWithoutCopy(store, { ...behind, title: 'missed' }, 2, facts('edit', null, null));
      const missing = campaign(nextId++);
      await entryWithoutCopy(store, missing, 1, facts('submit', null, 'submitted'));
      const current = campaign(nextId++);
      await store.create(current.campaignId, current, facts('submit', null, 'submitted'));

      expect(await store.rollForwardStale()).to.have.members([behind.campaignId, missing.campaignId]);
      expect(await store.loadProjection(behind.campaignId)).to.deep.include({ version: 2, title: 'missed', createdAt: created.createdAt });
      expect(await store.loadProjection(missing.campaignId)).to.deep.include({ version: 1, status: 'submitted' });
      expect(await store.rollForwardStale(), 'nothing left behind').to.deep.equal([]);
      const batches: number[][] = [];
      for await (const batch of store.currentInBatches()) batches.push(batch.map((record) => Number(record._id)));
      expect(batches.flat()).to.have.members([behind.campaignId, missing.campaignId, current.campaignId]);
    });

    it('keeps the recent copies an hour by the injected clock, sweeping at most once a minute as changes are made', async () => {
      let now = new Date('2026-03-01T10:00:00Z');
      const clock = { now: () => now };
      const store = new VersionedStore<Campaign>(db, 'campaign', 'campaigns_recent_test', 'campaign_history_recent_test', { clock });
      const recent = db.collection('campaign_history_recent_test_recent');
      const first = campaign(nextId++);
      const record = await store.create(first.campaignId, first, facts('submit', null, 'submitted'));
      await store.change(record, { ...first, title: 'second' }, facts('edit', null, null));
      expect(await recent.countDocuments({})).to.equal(2);

      now = new Date('2026-03-01T10:59:00Z');
      const later = campaign(nextId++);
      await store.create(later.campaignId, later, facts('submit', null, 'submitted'));
      await store.settled();
      expect(await recent.countDocuments({}), 'nothing is an hour old yet').to.equal(3);

      now = new Date('2026-03-01T11:00:30Z');
      const last = campaign(nextId++);
      await store.create(last.campaignId, last, facts('submit', null, 'submitted'));
      await store.settled();
      expect((await recent.find({}).toArray()).map((copy) => copy._id)).to.have.members([`${later.campaignId}:1`, `${last.campaignId}:1`]);
      // The history keeps every entry (the audit); the state is the same with the copies gone.
      expect(await store.history.countDocuments({})).to.equal(4);
      expect(await store.load(first.campaignId)).to.deep.include({ version: 2, title: 'second' });
    });

    it('rolls forward a record whose very first projection was never written, and loads nothing for an unknown id', async () => {
      const store = newStore();
      const state = campaign(nextId++);
      await entryWithoutProjection(store, state, 1, facts('submit', null, 'submitted'));
      expect(await store.load(state.campaignId)).to.deep.include({ version: 1, status: 'submitted' });
      expect(await store.load(999_999)).to.equal(null);
    });

    it('repairs the projection when a stale writer loses, so the next read is current', async () => {
      const store = newStore();
      const state = campaign(nextId++);
      const created = await store.create(state.campaignId, state, facts('submit', null, 'submitted'));
      await entryWithoutProjection(store, { ...state, title: 'from history' }, 2, facts('edit', null, null));
      await store.change(created, { ...state, title: 'late' }, facts('edit', null, null)).catch(() => undefined);
      expect(await projectionOf(db, 'campaigns', state.campaignId)).to.deep.include({ version: 2, title: 'from history' });
    });
  });

  describe('OutboxRelay', () => {
    it('publishes pending events with confirms, clears the flag, and does not publish them again', async () => {
      const store = newStore('_relay');
      const received = await consumer('relay-basic');
      const state = campaign(nextId++);
      const first = campaignEvent(state, 1);
      await store.create(state.campaignId, state, facts('submit', null, 'submitted'), [first]);
      const quiet = campaign(nextId++);
      await store.create(quiet.campaignId, quiet, facts('submit', null, 'submitted'));
      expect(await isMarkedPending(store, `${quiet.campaignId}:1`)).to.equal(false);

      const relay = newRelay(await newBus(), store);
      relay.start();
      await relay.flush();
      expect(await isMarkedPending(store, `${state.campaignId}:1`)).to.equal(false);
      await waitFor(() => received.length === 1);
      await relay.flush();
      await settle(received);
      expect(received.map((event) => event.id)).to.deep.equal([first.id]);
      expect(received[0]).to.deep.equal(first);
    });

    it('publishes a later write soon after kick()', async () => {
      const store = newStore('_kick');
      const received = await consumer('relay-kick');
      const relay = newRelay(await newBus(), store);
      relay.start();
      const state = campaign(nextId++);
      const event = campaignEvent(state, 1);
      await store.create(state.campaignId, state, facts('submit', null, 'submitted'), [event]);
      relay.kick();
      await waitFor(() => received.length === 1, { timeoutMs: 5000 });
      expect(received[0]?.id).to.equal(event.id);
    });

    it('publishNow() puts a just-written change on the bus before it resolves, once, while passes run beside it', async () => {
      const store = newStore('_now');
      const received = await consumer('relay-now');
      const relay = new OutboxRelay({ bus: await newBus(), queues: () => [store.outbox()], logger, intervalMs: 1, leases: db.collection('leases_now') });
      relays.push(relay);
      relay.start();
      const published: string[] = [];
      for (let n = 0; n < 20; n += 1) {
        const state = campaign(nextId++);
        const event = campaignEvent(state, 1);
        await store.create(state.campaignId, state, facts('submit', null, 'submitted'), [event]);
        expect(await relay.publishNow(store.outbox(), VersionedStore.entryId(state.campaignId, 1), [event]), 'on the bus').to.equal(true);
        // The marker is deleted after the caller heard back.
        await waitFor(async () => !(await isMarkedPending(store, VersionedStore.entryId(state.campaignId, 1))), { message: 'marker deleted after publishNow' });
        published.push(event.id);
      }
      await waitFor(() => received.length >= 20);
      await relay.flush();
      await settle(received);
      expect(received.map((event) => event.id)).to.deep.equal(published);
    });

    it('publishNow() leaves the events pending for a pass when the broker is unreachable, and does nothing before start()', async () => {
      const store = newStore('_now_down');
      const received = await consumer('relay-now-down');
      const state = campaign(nextId++);
      const event = campaignEvent(state, 1);
      await store.create(state.campaignId, state, facts('submit', null, 'submitted'), [event]);
      const entryId = VersionedStore.entryId(state.campaignId, 1);

      const notStarted = newRelay(await newBus(), store);
      expect(await notStarted.publishNow(store.outbox(), entryId, [event]), 'not started: pending').to.equal(false);
      const downRelay = newRelay(await newBus('amqp://guest:guest@127.0.0.1:1'), store);
      downRelay.start();
      expect(await downRelay.publishNow(store.outbox(), entryId, [event]), 'broker down: pending').to.equal(false);
      await settle(received);
      expect(received).to.deep.equal([]);
      expect(await isMarkedPending(store, entryId)).to.equal(true);

      await newRelay(await newBus(), store).flush();
      await waitFor(() => received.length === 1);
      expect(received[0]?.id).to.equal(event.id);
    });

    it('keeps events pending while the broker is unreachable and publishes them once it is reachable', async () => {
      const store = newStore('_down');
      const received = await consumer('relay-down');
      const state = campaign(nextId++);
      const event = campaignEvent(state, 1);
      await store.create(state.campaignId, state, facts('submit', null, 'submitted'), [event]);

      const downRelay = newRelay(await newBus('amqp://guest:guest@127.0.0.1:1'), store);
      let failure: unknown;
      await downRelay.flush().catch((error: unknown) => (failure = error));
      expect((failure as Error).name).to.equal('ServiceUnavailableError');
      expect(await isMarkedPending(store, `${state.campaignId}:1`)).to.equal(true);

      await newRelay(await newBus(), store).flush();
      await waitFor(() => received.length === 1);
      expect(received[0]?.id).to.equal(event.id);
    });

    it('publishes the events of every change of a record in version order', async () => {
      const store = newStore('_order');
      const received = await consumer('relay-order');
      const state = campaign(nextId++);
      const created = await store.create(state.campaignId, state, facts('submit', null, 'submitted'), [campaignEvent(state, 1)]);
      const active = { ...state, status: 'active' as const };
      await store.change(created, active, facts('activate', 'submitted', 'active'), [campaignEvent(active, 2)]);
      await newRelay(await newBus(), store).flush();
      await waitFor(() => received.length === 2);
      expect(received.map((event) => [event.type, event.aggregateVersion])).to.deep.equal([
        [CAMPAIGN_SUBMITTED, 1],
        [CAMPAIGN_ACTIVATED, 2],
      ]);
    });

    it('the outbox relay publishes events left pending by a process that died between its write and its publish', async function () {
      this.timeout(30_000);
      // Its own collections: events the other tests leave pending must not be published by this relay.
      const store = newStore('_crash');
      const received = await consumer('relay-crash');
      const campaignId = nextId++;
      const child = fork(path.join(__dirname, 'fixtures', 'dying-writer.ts'), [], {
        execArgv: ['--require', 'tsx/cjs'],
        env: { ...process.env, MONGO_URL: infra.mongoUrl, MONGO_DB: dbName, CAMPAIGN_ID: String(campaignId), COLLECTION_SUFFIX: '_crash' },
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      });
      children.push(child);
      const exited = new Promise<NodeJS.Signals | null>((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
      const written = await new Promise<{ written: number; eventId: string }>((resolve, reject) => {
        child.once('message', (message) => resolve(message as { written: number; eventId: string }));
        child.once('exit', (code) => reject(new Error(`writer exited with ${code} before writing`)));
      });
      child.kill('SIGKILL');
      expect(await exited).to.equal('SIGKILL');

      expect(written.written).to.equal(campaignId);
      expect(await isMarkedPending(store, `${campaignId}:1`)).to.equal(true);
      await settle(received);
      expect(received).to.have.length(0); // the dead writer published nothing

      const relay = newRelay(await newBus(), store);
      relay.start();
      await waitFor(() => received.length === 1, { timeoutMs: 10_000, message: 'the pending event was not published' });
      await relay.flush();
      await settle(received);
      expect(received.map((event) => event.id)).to.deep.equal([written.eventId]);
      expect(received[0]).to.deep.include({ type: CAMPAIGN_SUBMITTED, aggregateId: String(campaignId), aggregateVersion: 1 });
      expect(await isMarkedPending(store, `${campaignId}:1`)).to.equal(false);
      expect((await store.load(campaignId))?.status).to.equal('submitted');
    });
  });
});
