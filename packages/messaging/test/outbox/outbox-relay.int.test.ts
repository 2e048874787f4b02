/**
 * The outbox relay finishing what writers left unfinished, against the store that writes the changes
 * (`@pilot/storage`). Real FerretDB and RabbitMQ.
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Bus, OutboxRelay, type OutboxRelayOptions } from '../../src';
import { CAMPAIGN_ACTIVATED, CAMPAIGN_SUBMITTED, type CampaignEvent, type KnownEvent } from '@pilot/contracts';
import { createLogger, type Logger } from '@pilot/platform';
import { Registry } from 'prom-client';
import { deliveredSoFar, ManualClock, testInfra, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { MongoClient, type Db } from 'mongodb';
import { VersionedStore } from '@pilot/storage';
import { campaign, campaignEvent, facts, isPending, writtenByDeadWriter, type Campaign } from '../../../storage/test/versioned-store/support';

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

  it('writes the history entry of a change whose writer died after its guarded write, once, and publishes its events', async () => {
    const store = storeOf('dead_change');
    const received = await consumer('relay-dead-change');
    const state = campaign(nextId++);
    const created = await store.create(state.campaignId, state, facts('submit', null, 'submitted'));
    await store.settled();
    const active = { ...state, status: 'active' as const };
    await writtenByDeadWriter(store, created, active, facts('activate', 'submitted', 'active'));
    expect(await store.history.countDocuments({ _id: `${state.campaignId}:2` })).to.equal(0);

    await newRelay(await newBus(), store).flush();
    await newRelay(await newBus(), store).flush();
    expect(await store.history.countDocuments({ entityId: state.campaignId })).to.equal(2);
    expect(await store.history.findOne({ _id: `${state.campaignId}:2` })).to.deep.include({ action: 'activate', from: 'submitted', to: 'active' });
    expect(await isPending(store, `${state.campaignId}:2`)).to.equal(false);
    await waitFor(() => received.length === 1);
    await settle(received);
    expect(received).to.have.length(1);
    expect(received[0]).to.deep.include({ type: CAMPAIGN_ACTIVATED, aggregateVersion: 2 });
  });

  it('parks an event that fails its contract, says so, and publishes the next ones', async () => {
    const store = storeOf('parking');
    const received = await consumer('relay-parking');
    const broken = campaign(nextId++);
    const invalid = { ...campaignEvent(broken, 1), data: { campaignId: 'not a number' } } as unknown as CampaignEvent;
    await store.create(broken.campaignId, broken, facts('submit', null, 'submitted', new Date('2026-02-01T10:00:00Z')), [invalid]);
    const next = campaign(nextId++);
    const valid = campaignEvent(next, 1);
    await store.create(next.campaignId, next, facts('submit', null, 'submitted', new Date('2026-02-01T10:00:01Z')), [valid]);
    const errors: Array<{ fields: Record<string, unknown>; message: string }> = [];
    const recording = { ...logger, error: (fields: Record<string, unknown>, message: string) => void errors.push({ fields, message }) } as unknown as Logger;
    const metrics = new Registry();

    await newRelay(await newBus(), store, { logger: recording, metrics }).flush();
    await waitFor(() => received.length === 1);
    expect(received[0]?.id).to.equal(valid.id);
    expect(await isPending(store, `${broken.campaignId}:1`), 'parked, out of the way').to.equal(false);
    expect(await isPending(store, `${next.campaignId}:1`)).to.equal(false);
    const parked = await db.collection('parked_events').find({ recordId: broken.campaignId }).toArray();
    expect(parked).to.have.length(1);
    expect(parked[0]).to.deep.include({ collection: 'parking', version: 1 });
    expect((parked[0]?.event as KnownEvent).id).to.equal(invalid.id);
    expect(parked[0]?.problem).to.match(/invalid campaign\.submitted data/);
    expect(errors).to.have.length(1);
    expect(errors[0]?.fields).to.deep.include({ eventId: invalid.id, eventType: invalid.type, recordId: broken.campaignId, collection: 'parking' });
    expect(await metrics.getSingleMetricAsString('pilot_outbox_events_parked_total')).to.include('pilot_outbox_events_parked_total{collection="parking",event_type="campaign.submitted"} 1');
    expect(await store.history.countDocuments({ entityId: broken.campaignId }), 'its change is audited all the same').to.equal(1);
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

  it('finishes the records published before a publish that fails, and the rest at the next pass', async () => {
    const store = storeOf('batch');
    const created: string[] = [];
    for (let n = 0; n < 3; n += 1) {
      const state = campaign(nextId++);
      await store.create(state.campaignId, state, facts('submit', null, 'submitted', new Date(Date.parse('2026-02-01T10:00:00Z') + n)), [campaignEvent(state, 1)]);
      created.push(`${state.campaignId}:1`);
    }
    const [first, second, third] = created as [string, string, string];
    const refusingThird = await newBus();
    const publish = refusingThird.publish.bind(refusingThird);
    refusingThird.publish = async (event) => {
      if (`${event.aggregateId}:${event.aggregateVersion}` === third) throw new Error('the broker refused the third');
      await publish(event);
    };
    let failure: unknown;
    const relay = newRelay(refusingThird, store);
    await relay.flush().catch((error: unknown) => (failure = error));
    expect((failure as Error).message).to.equal('the broker refused the third');
    expect(await isPending(store, first)).to.equal(false);
    expect(await isPending(store, second)).to.equal(false);
    expect(await isPending(store, third), 'left for the next pass').to.equal(true);

    refusingThird.publish = publish;
    await relay.flush();
    expect(await isPending(store, third), 'the relay that held it takes it again at once').to.equal(false);
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

  it('publishes each leftover once when two relays pass at the same time (each takes a record by one atomic update)', async () => {
    const store = storeOf('two_relays');
    const received = await consumer('relay-two');
    const events: string[] = [];
    for (let n = 0; n < 12; n += 1) {
      const state = campaign(nextId++);
      const event = campaignEvent(state, 1);
      events.push(event.id);
      await store.create(state.campaignId, state, facts('submit', null, 'submitted'), [event]);
    }
    const [first, second] = [newRelay(await newBus(), store), newRelay(await newBus(), store)];
    await Promise.all([first!.flush(), second!.flush()]);
    await waitFor(() => received.length >= events.length);
    await settle(received);
    expect(received.map((event) => event.id)).to.have.members(events);
    expect(received).to.have.length(events.length);
  });

  it('finishes a create whose process died after its guarded write, before its history entry and its publish', async function () {
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
    expect(await crashed.history.countDocuments({ entityId: campaignId }), 'no history entry yet').to.equal(0);
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
    expect(await crashed.history.countDocuments({ entityId: campaignId }), 'its history entry, once').to.equal(1);
  });
});
