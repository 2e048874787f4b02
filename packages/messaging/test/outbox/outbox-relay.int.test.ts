/**
 * The outbox relay publishing what writers left unfinished, against the store that writes the entries
 * (`@pilot/storage`). Real FerretDB and RabbitMQ.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Bus, OutboxRelay, type OutboxRelayOptions } from '../../src';
import { CAMPAIGN_ACTIVATED, CAMPAIGN_SUBMITTED, type KnownEvent } from '@pilot/contracts';
import { createLogger } from '@pilot/platform';
import { deliveredSoFar, ManualClock, testInfra, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { MongoClient, type Db } from 'mongodb';
import { VersionedStore } from '@pilot/storage';
import { campaign, campaignEvent, entryOf, facts, isPending, projectionOf, type Campaign } from '../../../storage/test/versioned-store/support';

const logger = createLogger({ service: 'outbox-relay-test', level: 'silent' });

describe('OutboxRelay (real FerretDB and RabbitMQ)', () => {
  const infra = testInfra();
  const dbName = `outbox_relay_${infra.runId}`;
  let client: MongoClient;
  let db: Db;
  let nextId = 1;
  const buses: Bus[] = [];
  const relays: OutboxRelay[] = [];
  const children: ChildProcess[] = [];

  /** A store without a publisher: every change with events is left for the relay, as a writer that died leaves it. */
  const storeOf = (base: string) => new VersionedStore<Campaign>(db, 'campaign', base, `${base}_history`);
  const newBus = async (url = infra.amqpUrl) => {
    const bus = new Bus({ url, exchange: infra.exchange, logger, publishTimeoutMs: 5000 });
    buses.push(bus);
    if (url === infra.amqpUrl) await bus.ready();
    return bus;
  };
  const newRelay = (bus: Bus, store: VersionedStore<Campaign>, options: Partial<OutboxRelayOptions> = {}) => {
    const relay = new OutboxRelay({ bus, queues: () => [store.outbox()], logger, intervalMs: 100, pendingGraceMs: 0, ...options });
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

  it('publishes a leftover once with confirms, marks it finished, and leaves finished changes alone', async () => {
    const store = storeOf('basic');
    const received = await consumer('relay-basic');
    const state = campaign(nextId++);
    const first = campaignEvent(state, 1);
    await store.create(state.campaignId, state, facts('submit', null, 'submitted'), [first]);
    const quiet = campaign(nextId++);
    await store.create(quiet.campaignId, quiet, facts('submit', null, 'submitted'));
    await store.settled();
    expect(await isPending(store, `${quiet.campaignId}:1`), 'no events: finished by its writer').to.equal(false);

    const relay = newRelay(await newBus(), store);
    relay.start();
    await relay.flush();
    expect(await isPending(store, `${state.campaignId}:1`)).to.equal(false);
    await waitFor(() => received.length === 1);
    await relay.flush();
    await settle(received);
    expect(received).to.deep.equal([first]);
  });

  it('rolls forward the projection a dead writer never wrote before publishing its events', async () => {
    const store = storeOf('roll');
    const received = await consumer('relay-roll');
    const state = campaign(nextId++);
    await store.create(state.campaignId, state, facts('submit', null, 'submitted'));
    const active = { ...state, status: 'active' as const };
    await store.history.insertOne(entryOf(active, 2, facts('activate', 'submitted', 'active')));
    expect((await projectionOf(db, 'roll', state.campaignId))?.version).to.equal(1);

    await newRelay(await newBus(), store).flush();
    expect(await projectionOf(db, 'roll', state.campaignId)).to.deep.include({ version: 2, status: 'active' });
    expect(await isPending(store, `${state.campaignId}:2`)).to.equal(false);
    await waitFor(() => received.length === 1);
    expect(received[0]).to.deep.include({ type: CAMPAIGN_ACTIVATED, aggregateVersion: 2 });
  });

  it('leaves a change to its writer while it is younger than the grace, by the injected clock', async () => {
    const store = storeOf('grace');
    const clock = new ManualClock(Date.parse('2026-02-01T10:00:00Z'));
    const state = campaign(nextId++);
    await store.create(state.campaignId, state, facts('submit', null, 'submitted', clock.now()), [campaignEvent(state, 1)]);
    const relay = newRelay(await newBus(), store, { clock, pendingGraceMs: 5_000 });
    clock.advance(4_000);
    await relay.flush();
    expect(await isPending(store, `${state.campaignId}:1`), 'its writer may still be publishing').to.equal(true);
    clock.advance(1_000);
    await relay.flush();
    expect(await isPending(store, `${state.campaignId}:1`)).to.equal(false);
  });

  it('keeps events pending while the broker is unreachable and publishes them once it is reachable', async () => {
    const store = storeOf('down');
    const received = await consumer('relay-down');
    const state = campaign(nextId++);
    const event = campaignEvent(state, 1);
    await store.create(state.campaignId, state, facts('submit', null, 'submitted'), [event]);

    const downRelay = newRelay(await newBus('amqp://guest:guest@127.0.0.1:1'), store);
    let failure: unknown;
    await downRelay.flush().catch((error: unknown) => (failure = error));
    expect((failure as Error).name).to.equal('ServiceUnavailableError');
    expect(await isPending(store, `${state.campaignId}:1`)).to.equal(true);

    await newRelay(await newBus(), store).flush();
    await waitFor(() => received.length === 1);
    expect(received[0]?.id).to.equal(event.id);
  });

  it('marks a batch finished in one update, and when a publish fails the entries published before it', async () => {
    const store = storeOf('batch');
    const created: string[] = [];
    for (let n = 0; n < 3; n += 1) {
      const state = campaign(nextId++);
      await store.create(state.campaignId, state, facts('submit', null, 'submitted'), [campaignEvent(state, 1)]);
      created.push(`${state.campaignId}:1`);
    }
    const [first, second, third] = created as [string, string, string];
    const refusingThird = await newBus();
    const publish = refusingThird.publish.bind(refusingThird);
    refusingThird.publish = async (event) => {
      if (`${event.aggregateId}:${event.aggregateVersion}` === third) throw new Error('the broker refused the third');
      await publish(event);
    };
    await store.settled();
    // The relay's view of the entries, recording the filters of its updates.
    const updates: unknown[] = [];
    const stored = store.outbox().entries;
    const entries: typeof stored = Object.create(stored);
    entries.updateMany = ((filter: unknown, ...rest: unknown[]) => {
      updates.push(filter);
      return (stored.updateMany as (...args: unknown[]) => unknown).call(entries, filter, ...rest);
    }) as typeof stored.updateMany;

    let failure: unknown;
    await newRelay(refusingThird, store, { queues: () => [{ ...store.outbox(), entries }] })
      .flush()
      .catch((error: unknown) => (failure = error));
    expect((failure as Error).message).to.equal('the broker refused the third');
    expect(updates, 'one update for the two published').to.deep.equal([{ _id: { $in: [first, second] } }]);
    expect(await isPending(store, first)).to.equal(false);
    expect(await isPending(store, second)).to.equal(false);
    expect(await isPending(store, third), 'left for the next pass').to.equal(true);

    await newRelay(await newBus(), store).flush();
    expect(await isPending(store, third)).to.equal(false);
  });

  it('publishes the events of every change of a record in version order', async () => {
    const store = storeOf('order');
    const received = await consumer('relay-order');
    const state = campaign(nextId++);
    const created = await store.create(state.campaignId, state, facts('submit', null, 'submitted', new Date('2026-02-01T10:00:00Z')), [campaignEvent(state, 1)]);
    const active = { ...state, status: 'active' as const };
    await store.change(created, active, facts('activate', 'submitted', 'active', new Date('2026-02-01T10:00:01Z')), [campaignEvent(active, 2)]);
    await newRelay(await newBus(), store).flush();
    await waitFor(() => received.length === 2);
    expect(received.map((event) => [event.type, event.aggregateVersion])).to.deep.equal([
      [CAMPAIGN_SUBMITTED, 1],
      [CAMPAIGN_ACTIVATED, 2],
    ]);
  });

  it('publishes each leftover once when two relays with leases pass at the same time', async () => {
    const store = storeOf('two_relays');
    const received = await consumer('relay-two');
    const events: string[] = [];
    for (let n = 0; n < 12; n += 1) {
      const state = campaign(nextId++);
      const event = campaignEvent(state, 1);
      events.push(event.id);
      await store.create(state.campaignId, state, facts('submit', null, 'submitted'), [event]);
    }
    const leases = db.collection('two_relays_leases');
    const [first, second] = [newRelay(await newBus(), store, { leases }), newRelay(await newBus(), store, { leases })];
    await Promise.all([first!.flush(), second!.flush()]);
    await waitFor(() => received.length >= events.length);
    await settle(received);
    expect(received.map((event) => event.id)).to.have.members(events);
    expect(received).to.have.length(events.length);
  });

  it('publishes events left pending by a process that died between its write and its publish', async function () {
    this.timeout(30_000);
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

    const crashed = new VersionedStore<Campaign>(db, 'campaign', 'campaigns_crash', 'campaign_history_crash');
    expect(written.written).to.equal(campaignId);
    expect(await isPending(crashed, `${campaignId}:1`)).to.equal(true);
    await settle(received);
    expect(received).to.have.length(0); // the dead writer published nothing

    const relay = newRelay(await newBus(), crashed, { pendingGraceMs: 1_000 });
    relay.start();
    await waitFor(() => received.length === 1, { timeoutMs: 10_000, message: 'the pending event was not published' });
    await relay.flush();
    await settle(received);
    expect(received.map((event) => event.id)).to.deep.equal([written.eventId]);
    expect(received[0]).to.deep.include({ type: CAMPAIGN_SUBMITTED, aggregateId: String(campaignId), aggregateVersion: 1 });
    expect(await isPending(crashed, `${campaignId}:1`)).to.equal(false);
    expect((await crashed.load(campaignId))?.status).to.equal('submitted');
  });
});
