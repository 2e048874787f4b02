import { Bus } from '@pilot/bus';
import { CAMPAIGN_ACTIVATED, CAMPAIGN_SUBMITTED, type KnownEvent } from '@pilot/contracts';
import { createLogger } from '@pilot/logging';
import { deliveredSoFar, ManualClock, testInfra, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { MongoClient, type Db } from 'mongodb';
import { OutboxRelay, type OutboxRelayOptions } from '@pilot/outbox';
import { VersionedStore } from '../src';
import { campaign, campaignEvent, facts, isMarkedPending, type Campaign } from './support';

const logger = createLogger({ service: 'outbox-markers-test', level: 'silent' });
const LEASE_MS = 30_000;

describe('outbox pending markers (real FerretDB and RabbitMQ)', () => {
  const infra = testInfra();
  const dbName = `outbox_markers_${infra.runId}`;
  let client: MongoClient;
  let db: Db;
  let nextId = 1;
  const buses: Bus[] = [];
  const relays: OutboxRelay[] = [];

  const storeOf = (suffix: string) => new VersionedStore<Campaign>(db, 'campaign', `campaigns${suffix}`, `campaign_history${suffix}`);
  const newRelay = async (store: VersionedStore<Campaign>, options: Partial<OutboxRelayOptions> = {}) => {
    const bus = new Bus({ url: infra.amqpUrl, exchange: infra.exchange, logger, publishTimeoutMs: 5000 });
    buses.push(bus);
    await bus.ready();
    const relay = new OutboxRelay({ bus, queues: () => [store.outbox()], leases: db.collection('leases'), leaseMs: LEASE_MS, logger, intervalMs: 60_000, ...options });
    relays.push(relay);
    return relay;
  };
  /** A durable consumer of campaign events, recording each delivery (duplicates included). */
  const consumer = async (name: string) => {
    const received: KnownEvent[] = [];
    const bus = new Bus({ url: infra.amqpUrl, exchange: infra.exchange, logger, publishTimeoutMs: 5000 });
    buses.push(bus);
    await bus.ready();
    await bus.subscribeDurable({ name, eventTypes: [CAMPAIGN_SUBMITTED, CAMPAIGN_ACTIVATED], handler: async (event) => void received.push(event) });
    return received;
  };
  /** Everything published so far has reached `received` (a duplicate would have). */
  const settle = async (received: KnownEvent[]) => {
    const bus = new Bus({ url: infra.amqpUrl, exchange: infra.exchange, logger, publishTimeoutMs: 5000 });
    buses.push(bus);
    await bus.ready();
    await deliveredSoFar(received, campaignEvent(campaign(nextId++), 1), (marker) => bus.publish(marker));
  };

  before(async () => {
    client = await MongoClient.connect(infra.mongoUrl, { retryWrites: false });
    db = client.db(dbName);
  });
  after(async () => {
    await Promise.all(relays.map((relay) => relay.stop()));
    await Promise.all(buses.map((bus) => bus.close()));
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  });

  it('marks a change with events pending, publishes it once and deletes the marker; a change without events is never marked', async () => {
    const store = storeOf('_once');
    const received = await consumer('markers-once');
    const relay = await newRelay(store, { intervalMs: 5 });
    relay.start();
    const state = campaign(nextId++);
    const event = campaignEvent(state, 1);
    await store.create(state.campaignId, state, facts('submit', null, 'submitted'), [event]);
    const entryId = VersionedStore.entryId(state.campaignId, 1);
    const quiet = campaign(nextId++);
    await store.create(quiet.campaignId, quiet, facts('submit', null, 'submitted'));
    expect(await isMarkedPending(store, VersionedStore.entryId(quiet.campaignId, 1))).to.equal(false);

    await relay.publishNow(store.outbox(), entryId, [event]);
    expect(received.length).to.be.at.most(1);
    await waitFor(async () => !(await isMarkedPending(store, entryId)), { message: 'marker deleted' });
    await relay.flush();
    await settle(received);
    expect(received.map((published) => published.id)).to.deep.equal([event.id]);
    expect(await store.outbox().pending.countDocuments({})).to.equal(0);
  });

  it('publishes nothing for a writer that died after its marker and before its entry, and sweeps the marker after the grace', async () => {
    const clock = new ManualClock();
    const store = storeOf('_died');
    const received = await consumer('markers-died');
    const relay = await newRelay(store, { clock });
    const entryId = VersionedStore.entryId(nextId++, 1);
    // All the dead writer left: its marker (written before the entry, which never came).
    await store.outbox().pending.insertOne({ _id: entryId as never, at: clock.now() });

    clock.advance(2 * LEASE_MS - 1);
    await relay.flush();
    expect(await isMarkedPending(store, entryId)).to.equal(true); // its writer may still be about to insert it

    clock.advance(2);
    await relay.flush();
    expect(await isMarkedPending(store, entryId)).to.equal(false);
    await settle(received);
    expect(received).to.deep.equal([]);
    expect(await store.history.countDocuments({})).to.equal(0);
  });

  it('waits out the grace for an entry without its recent copy, then publishes it from the history', async () => {
    const clock = new ManualClock();
    const store = storeOf('_uncopied');
    const received = await consumer('markers-uncopied');
    const relay = await newRelay(store, { clock });
    const state = campaign(nextId++);
    const event = campaignEvent(state, 1);
    const entryId = VersionedStore.entryId(state.campaignId, 1);
    // A writer that died after its marker and entry, before the entry's copy.
    await store.outbox().pending.insertOne({ _id: entryId as never, at: clock.now() });
    await store.history.insertOne({
      _id: entryId,
      entity: 'campaign',
      entityId: state.campaignId,
      version: 1,
      ownerAccountId: state.ownerAccountId,
      ...facts('submit', null, 'submitted', clock.now()),
      reason: null,
      state,
      outbox: [event],
    });
    await relay.flush(); // young: only the copies are read, and there is none
    expect(await isMarkedPending(store, entryId)).to.equal(true);

    clock.advance(2 * LEASE_MS);
    await relay.flush();
    await waitFor(() => received.length === 1, { message: 'published from the history after the grace' });
    expect(received[0]?.id).to.equal(event.id);
    expect(await isMarkedPending(store, entryId)).to.equal(false);
  });

  it('publishes an entry written after a pass found only its marker', async () => {
    const clock = new ManualClock();
    const store = storeOf('_late');
    const received = await consumer('markers-late');
    const relay = await newRelay(store, { clock });
    const state = campaign(nextId++);
    const event = campaignEvent(state, 1);
    const entryId = VersionedStore.entryId(state.campaignId, 1);
    await store.outbox().pending.insertOne({ _id: entryId as never, at: clock.now() });
    await relay.flush(); // the marker, no entry yet: left alone
    expect(await isMarkedPending(store, entryId)).to.equal(true);

    // The writer goes on: the same marker again (a duplicate is fine), then its entry; then it dies.
    await store.create(state.campaignId, state, { ...facts('submit', null, 'submitted'), at: clock.now() }, [event]);
    await relay.flush();
    await waitFor(() => received.length === 1);
    expect(received[0]?.id).to.equal(event.id);
    expect(await isMarkedPending(store, entryId)).to.equal(false);
  });

  it('moves entries flagged outboxPending by the earlier design to markers at start, once, and publishes each once', async () => {
    const store = storeOf('_flags');
    const received = await consumer('markers-flags');
    const flagged = [campaign(nextId++), campaign(nextId++)];
    const published = campaign(nextId++);
    const entryOf = (state: Campaign, outboxPending: boolean) => ({
      _id: VersionedStore.entryId(state.campaignId, 1),
      entity: 'campaign',
      entityId: state.campaignId,
      version: 1,
      ownerAccountId: state.ownerAccountId,
      ...facts('submit', null, 'submitted'),
      reason: null,
      state,
      outbox: [campaignEvent(state, 1)],
      outboxPending,
    });
    await store.history.insertMany([entryOf(flagged[0]!, true), entryOf(flagged[1]!, true), entryOf(published, false)] as never[]);

    await store.ensureIndexes();
    expect(await store.history.countDocuments({ outboxPending: true })).to.equal(0);
    const markers = await store.outbox().pending.find({}).toArray();
    expect(markers.map((marker) => marker._id)).to.have.members(flagged.map((state) => VersionedStore.entryId(state.campaignId, 1)));
    // Recorded as done, so a later start does not search the history again.
    expect(await store.history.db.collection('outbox_migrations').countDocuments({ _id: `${store.history.collectionName}:flagged-entries-marked` as never })).to.equal(1);
    await storeOf('_flags').ensureIndexes(); // a restart: nothing flagged is left to move
    expect(await store.outbox().pending.countDocuments({})).to.equal(2);

    const relay = await newRelay(store);
    await relay.flush();
    await waitFor(() => received.length === 2);
    await (await newRelay(store)).flush(); // another start publishes nothing again
    await settle(received);
    expect(received.map((event) => event.aggregateId)).to.have.members(flagged.map((state) => String(state.campaignId)));
    expect(await store.outbox().pending.countDocuments({})).to.equal(0);
  });
});
