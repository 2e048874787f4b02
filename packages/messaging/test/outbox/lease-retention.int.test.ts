import { Bus, OutboxRelay, type OutboxRelayOptions } from '../../src';
import { CAMPAIGN_SUBMITTED, type KnownEvent } from '@pilot/contracts';
import { createLogger } from '@pilot/platform';
import { ManualClock, testInfra, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { MongoClient, type Db } from 'mongodb';
import { VersionedStore } from '@pilot/storage';
import { campaign, campaignEvent, facts, isPending, type Campaign } from '../../../storage/test/versioned-store/support';

const logger = createLogger({ service: 'outbox-lease-retention-test', level: 'silent' });
const HOUR = 3_600_000;

describe('outbox leases are deleted an hour after they were taken (real FerretDB and RabbitMQ)', () => {
  const infra = testInfra();
  const dbName = `outbox_leases_${infra.runId}`;
  let client: MongoClient;
  let db: Db;
  let bus: Bus;
  let nextId = 1;
  const relays: OutboxRelay[] = [];
  const newRelay = (suffix: string, clock: ManualClock, options: Partial<OutboxRelayOptions> = {}) => {
    const relay = new OutboxRelay({
      bus,
      queues: () => [storeOf(suffix).outbox()],
      leases: db.collection(`leases${suffix}`),
      logger,
      clock,
      intervalMs: 60_000,
      pendingGraceMs: 0,
      ...options,
    });
    relays.push(relay);
    return relay;
  };
  const storeOf = (suffix: string) => new VersionedStore<Campaign>(db, 'campaign', `campaigns${suffix}`, `campaign_history${suffix}`);
  /** A leftover change (no publisher) that the relay publishes under a lease. */
  async function published(store: VersionedStore<Campaign>, relay: OutboxRelay, clock: ManualClock): Promise<{ entryId: string; event: KnownEvent }> {
    const state = campaign(nextId++);
    const event = campaignEvent(state, 1);
    await store.create(state.campaignId, state, facts('submit', null, 'submitted', clock.now()), [event]);
    const entryId = VersionedStore.entryId(state.campaignId, 1);
    await relay.flush();
    await waitFor(async () => !(await isPending(store, entryId)), { message: 'leftover published by the relay' });
    return { entryId, event };
  }

  before(async () => {
    client = await MongoClient.connect(infra.mongoUrl, { retryWrites: false });
    db = client.db(dbName);
    bus = new Bus({ url: infra.amqpUrl, exchange: infra.exchange, logger, publishTimeoutMs: 5000 });
    await bus.ready();
  });
  after(async () => {
    await Promise.all(relays.map((relay) => relay.stop()));
    await bus.close();
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  });

  it('stamps leases with the injected clock, keeps them for an hour, then deletes them and never the history entry', async () => {
    const clock = new ManualClock();
    const store = storeOf('_window');
    const relay = newRelay('_window', clock);
    relay.start();
    const { entryId } = await published(store, relay, clock);
    const leases = db.collection('leases_window');
    const lease = await leases.findOne({ _id: `campaign_history_window:${entryId}#1` as never });
    expect(lease?.at).to.deep.equal(clock.now());
    const takenAt = clock.now();

    clock.set(new Date(takenAt.getTime() + HOUR - 1));
    expect(await relay.sweepLeases()).to.equal(0);
    expect(await leases.countDocuments()).to.equal(1);

    clock.set(new Date(takenAt.getTime() + HOUR + 1));
    expect(await relay.sweepLeases()).to.equal(1);
    expect(await leases.countDocuments()).to.equal(0);
    expect(await store.history.countDocuments({ _id: entryId as never })).to.equal(1);
    expect(await isPending(store, entryId)).to.equal(false);
    const indexes = (await leases.listIndexes().toArray()).map((index) => Object.keys(index.key as object).join(','));
    expect(indexes).to.include('at');
  });

  it('never deletes a lease younger than twice the lease time: a pending entry held by another relay stays with it through a sweep', async () => {
    const clock = new ManualClock();
    const store = storeOf('_held');
    const state = campaign(nextId++);
    await store.create(state.campaignId, state, facts('submit', null, 'submitted', clock.now()), [campaignEvent(state, 1)]);
    const entryId = VersionedStore.entryId(state.campaignId, 1);
    // Another replica took the lease just now. A retention set (wrongly) below the lease time still keeps it.
    const leases = db.collection('leases_held');
    const first = `campaign_history_held:${entryId}#1`;
    await leases.insertOne({ _id: first as never, at: clock.now(), holder: 'another replica' });
    const relay = newRelay('_held', clock, { leaseMs: 30_000, leaseRetentionMs: 1 });

    clock.advance(29_000);
    expect(await relay.sweepLeases()).to.equal(0);
    await relay.flush();
    expect(await isPending(store, entryId)).to.equal(true);

    // Past the lease time the other replica is presumed dead: this relay takes generation 2 and publishes.
    clock.advance(2_000);
    await relay.flush();
    expect(await isPending(store, entryId)).to.equal(false);
    expect(await relay.sweepLeases()).to.equal(0);

    // Twice the lease time after the first lease, it goes; the second, younger, stays.
    clock.advance(30_000);
    expect(await relay.sweepLeases()).to.equal(1);
    expect((await leases.find({}).toArray()).map((lease) => lease._id)).to.deep.equal([`campaign_history_held:${entryId}#2`]);
  });

  it('sweeps at start and on its interval until stopped', async () => {
    const clock = new ManualClock();
    const store = storeOf('_timer');
    const leases = db.collection('leases_timer');
    await leases.insertOne({ _id: 'campaign_history_timer:old:1#1' as never, at: new Date(clock.now().getTime() - 2 * HOUR), holder: 'gone' });
    const relay = newRelay('_timer', clock, { leaseSweepIntervalMs: 50 });
    relay.start();
    await waitFor(async () => (await leases.countDocuments({ holder: 'gone' })) === 0, { timeoutMs: 5000, message: 'no sweep at start' });
    const { entryId, event } = await published(store, relay, clock);
    expect(event.type).to.equal(CAMPAIGN_SUBMITTED);
    expect(await leases.countDocuments()).to.equal(1);
    clock.advance(HOUR + 1);
    await waitFor(async () => (await leases.countDocuments()) === 0, { timeoutMs: 5000, message: 'no periodic sweep' });
    expect(await isPending(store, entryId)).to.equal(false);

    await relay.stop();
    await leases.insertOne({ _id: 'campaign_history_timer:late:1#1' as never, at: new Date(clock.now().getTime() - 2 * HOUR), holder: 'gone' });
    // That nothing happens has no event to wait for: five sweep intervals (50 ms) pass with the lease left alone.
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await leases.countDocuments()).to.equal(1);
  });

  it('logs a failed sweep as a warning and resolves; the relay keeps running', async () => {
    const clock = new ManualClock();
    const closed = await MongoClient.connect(infra.mongoUrl, { retryWrites: false });
    const unreachable = closed.db(dbName).collection('leases_unreachable');
    await closed.close();
    const warnings: string[] = [];
    const recording = { warn: (_details: object, message: string) => void warnings.push(message), info: () => undefined } as unknown as typeof logger;
    const relay = newRelay('_unreachable', clock, { leases: unreachable, leaseSweepIntervalMs: 20, logger: recording });
    relay.start();
    expect(await relay.sweepLeases()).to.equal(0);
    await waitFor(() => warnings.filter((warning) => warning === 'outbox lease sweep failed; will retry at the next interval').length >= 3);
    await relay.stop();
  });
});
