import { ActiveCampaignCache } from '@pilot/campaign-cache';
import { ConfigError, internalGet } from '@pilot/platform';
import { createEnvelope, type CampaignState, type KnownEvent } from '@pilot/contracts';
import { connectMongo } from '@pilot/storage';
import { infraEnv, ManualClock, runServiceMain, testInfra, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import type { Collection } from 'mongodb';
import { loadConfig } from '../src/config';
import { CampaignRepository } from '../src/data/campaign-repository';
import { campaignStateOf, type CampaignRecord } from '../src/domain/campaign';
import { createCampaign } from '../src/use-cases/create-campaign';
import type { CampaignDeps } from '../src/use-cases/deps';
import { listCampaigns } from '../src/use-cases/list-campaigns';
import { ADMIN, client, CREATIVE, listen, logger, startCampaign, type Who } from './support';

/** The versions of a campaign's changes still pending in its document. */
async function pendingVersions(campaigns: Collection, id: number): Promise<number[]> {
  const stored = await campaigns.findOne({ _id: id as never }, { projection: { pending: 1 } });
  return ((stored?.pending ?? []) as Array<{ version: number }>).map((change) => change.version);
}

describe('campaign service: limits, replicas, outbox recovery, configuration', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    while (cleanup.length > 0) await cleanup.pop()?.();
  });

  async function running(infra: ReturnType<typeof testInfra>, options: Parameters<typeof startCampaign>[1] = {}, env: Record<string, string> = {}) {
    const service = await startCampaign(infra, options, env);
    let stopped = false;
    const stop = async () => {
      if (stopped) return;
      stopped = true;
      await service.stop();
    };
    cleanup.push(stop);
    return { service, stop };
  }

  it('holds an account to 100 records when 20 drafts are created at once across two replicas', async () => {
    const infra = testInfra();
    const [{ service: one }, { service: two }] = await Promise.all([running(infra), running(infra)]);
    const replicas = [client(infra, one.url), client(infra, two.url)];
    const account: Who = { accountId: '7001' };
    const createOn = (index: number) => replicas[index % 2]!.post('/api/workspace/campaigns', account, { ...CREATIVE, name: `draft ${index}` });

    for (let batch = 0; batch < 9; batch += 1) {
      const responses = await Promise.all(Array.from({ length: 10 }, (_, index) => createOn(batch * 10 + index)));
      expect(responses.map((response) => response.status)).to.deep.equal(Array(10).fill(201));
    }
    const racing = await Promise.all(Array.from({ length: 20 }, (_, index) => createOn(index)));
    const created = racing.filter((response) => response.status === 201);
    const refused = racing.filter((response) => response.status === 409);
    expect(created).to.have.length(10);
    expect(refused).to.have.length(10);
    for (const response of refused) expect(response.body.code).to.equal('campaign_limit');

    const listed = await replicas[0]!.get('/api/workspace/campaigns?limit=100', account);
    expect(listed.body.items).to.have.length(100);
    const ids = listed.body.items.map((item: { id: number }) => item.id);
    expect(new Set(ids).size).to.equal(100);
    const late = await replicas[1]!.post('/api/workspace/campaigns', account, CREATIVE);
    expect(late.status).to.equal(409);
    expect(late.body.code).to.equal('campaign_limit');
    const neighbour = await replicas[1]!.post('/api/workspace/campaigns', { accountId: '7002' }, CREATIVE);
    expect(neighbour.status).to.equal(201);
  });

  it('hands out distinct positive integer ids when two replicas create at the same time', async () => {
    const infra = testInfra();
    const [{ service: one }, { service: two }] = await Promise.all([running(infra), running(infra)]);
    const replicas = [client(infra, one.url), client(infra, two.url)];
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) => replicas[index % 2]!.post('/api/workspace/campaigns', { accountId: String(8000 + index) }, CREATIVE)),
    );
    expect(responses.map((response) => response.status)).to.deep.equal(Array(20).fill(201));
    const ids = responses.map((response) => response.body.id as number);
    expect(new Set(ids).size).to.equal(20);
    for (const id of ids) expect(Number.isSafeInteger(id) && id > 0).to.equal(true);
  });

  it('answers a transition only after its event is on the bus, without waiting for a relay pass', async () => {
    const infra = testInfra();
    const { events, bus } = await listen(infra);
    cleanup.push(() => bus.close());
    const owner: Who = { accountId: '6101' };
    // A pass once at start, then not for an hour: whatever is published meanwhile, the writer published.
    const { service } = await running(infra, {}, { OUTBOX_RELAY_INTERVAL_MS: '3600000' });
    await service.relay.flush();
    const api = client(infra, service.url);
    const mongo = await connectMongo({ url: infra.mongoUrl, dbName: infraEnv(infra, 'campaign').MONGO_DB as string });
    cleanup.push(() => mongo.close());
    const campaigns = mongo.db!.collection('campaigns');

    const id = (await api.post('/api/workspace/campaigns', owner, CREATIVE)).body.id as number;
    const moves: Array<[string, Who]> = [['submit', owner], ['approve', ADMIN], ['activate', ADMIN], ['pause', owner]];
    for (const [action, who] of moves) {
      expect((await api.post(`/api/workspace/campaigns/${id}/${action}`, who)).status).to.equal(200);
      // No relay pass runs: the writer published the change itself before answering and finishes it right after.
      await waitFor(async () => (await pendingVersions(campaigns, id)).length === 0, { message: `${action} finished by the writer` });
    }
    await waitFor(() => events.length >= moves.length, { message: 'events of every transition' });
    expect(events.map((event) => [event.type, event.aggregateVersion])).to.deep.equal([
      ['campaign.submitted', 2],
      ['campaign.approved', 3],
      ['campaign.activated', 4],
      ['campaign.paused', 5],
    ]);
  });

  it('publishes events left pending by a process that died before publishing, once each', async () => {
    const infra = testInfra();
    const { events, bus } = await listen(infra);
    cleanup.push(() => bus.close());
    const owner: Who = { accountId: '6001' };

    // A replica whose relay never runs: the writes land, their events stay in the outbox.
    const crashed = await running(infra, { relay: false });
    const mongo = await connectMongo({ url: infra.mongoUrl, dbName: infraEnv(infra, 'campaign').MONGO_DB as string });
    cleanup.push(() => mongo.close());
    const campaigns = mongo.db!.collection('campaigns');
    const api = client(infra, crashed.service.url);
    const created = await api.post('/api/workspace/campaigns', owner, CREATIVE);
    const id = created.body.id as number;
    // The creation has no event: its writer finishes it after the answer (a move made before that would
    // leave it for the relay, beside the move).
    await waitFor(async () => (await pendingVersions(campaigns, id)).length === 0, { message: 'the creation finished by its writer' });
    // Stored, not yet in effect: the answer says so (202, propagation pending).
    expect((await api.post(`/api/workspace/campaigns/${id}/submit`, owner)).status).to.equal(202);
    expect((await api.post(`/api/workspace/campaigns/${id}/approve`, ADMIN)).status).to.equal(202);
    await crashed.stop();

    expect(await pendingVersions(campaigns, id)).to.deep.equal([2, 3]);
    expect(events).to.deep.equal([]);

    // Another replica starts; its relay finds the unfinished changes and publishes their events.
    const recovered = await running(infra, {}, { OUTBOX_PENDING_GRACE_MS: '0' });
    await waitFor(() => events.length >= 2, { message: 'pending events published' });
    await waitFor(async () => (await campaigns.countDocuments({ pendingSince: { $exists: true } })) === 0);
    // A later transition is a marker: any duplicate of the recovered events would arrive before it.
    const api2 = client(infra, recovered.service.url);
    expect((await api2.post(`/api/workspace/campaigns/${id}/activate`, ADMIN)).status).to.equal(200);
    await waitFor(() => events.some((event: KnownEvent) => event.type === 'campaign.activated'));
    expect(events.map((event) => [event.type, event.aggregateVersion])).to.deep.equal([
      ['campaign.submitted', 2],
      ['campaign.approved', 3],
      ['campaign.activated', 4],
    ]);
  });

  it('takes over a record whose relay hold was left by a dead replica once the hold lapses', async () => {
    const infra = testInfra();
    const { events, bus } = await listen(infra);
    cleanup.push(() => bus.close());
    const owner: Who = { accountId: '6011' };
    const crashed = await running(infra, { relay: false });
    const api = client(infra, crashed.service.url);
    const { body } = await api.post('/api/workspace/campaigns', owner, CREATIVE);
    expect((await api.post(`/api/workspace/campaigns/${body.id}/submit`, owner)).status).to.equal(202);
    await crashed.stop();
    // The dead replica's relay had taken the record just before it died.
    const mongo = await connectMongo({ url: infra.mongoUrl, dbName: infraEnv(infra, 'campaign').MONGO_DB as string });
    cleanup.push(() => mongo.close());
    await mongo.db!.collection('campaigns').updateOne({ _id: body.id as never }, { $set: { relayLeaseUntil: new Date(Date.now() + 400), relayLeaseHolder: 'dead' } });

    const startedAt = Date.now();
    const survivor = await startCampaign(infra, {}, { OUTBOX_LEASE_MS: '400', OUTBOX_PENDING_GRACE_MS: '0' });
    cleanup.push(() => survivor.stop());
    await waitFor(() => events.length === 1, { message: 'the abandoned event published' });
    expect(Date.now() - startedAt).to.be.at.least(300);
    expect(events[0]).to.include({ type: 'campaign.submitted', aggregateVersion: 2 });
  });

  it('lets exactly one of 10 concurrent identical moves on two replicas win, with one event', async () => {
    const infra = testInfra();
    const { events, bus } = await listen(infra);
    cleanup.push(() => bus.close());
    const [{ service: one }, { service: two }] = await Promise.all([running(infra), running(infra)]);
    const replicas = [client(infra, one.url), client(infra, two.url)];
    const owner: Who = { accountId: '6201' };
    const { body } = await replicas[0]!.post('/api/workspace/campaigns', owner, CREATIVE);
    const responses = await Promise.all(
      Array.from({ length: 10 }, (_, index) => replicas[index % 2]!.post(`/api/workspace/campaigns/${body.id}/submit`, owner)),
    );
    expect(responses.filter((response) => response.status === 200)).to.have.length(1);
    const refused = responses.filter((response) => response.status !== 200);
    expect(refused).to.have.length(9);
    for (const response of refused) expect(response.status).to.equal(409);
    // The next move is the marker: a second submitted event would arrive before it.
    expect((await replicas[1]!.post(`/api/workspace/campaigns/${body.id}/approve`, ADMIN)).status).to.equal(200);
    await waitFor(() => events.some((event) => event.type === 'campaign.approved'));
    expect(events.map((event) => [event.type, event.aggregateVersion])).to.deep.equal([
      ['campaign.submitted', 2],
      ['campaign.approved', 3],
    ]);
  });

  /**
   * An approved campaign whose activation was written (its guarded write: the document at version 4 with
   * the change pending since a minute) by a process that died before its history entry and its publish.
   * The outbox relay passes at start and then every `relayIntervalMs`.
   */
  async function activationLeftByDeadWriter(relayIntervalMs: string, accountId: string) {
    const infra = testInfra();
    const { events, bus } = await listen(infra);
    cleanup.push(() => bus.close());
    const { service } = await running(infra, {}, { OUTBOX_RELAY_INTERVAL_MS: relayIntervalMs });
    const api = client(infra, service.url);
    const owner: Who = { accountId };
    const { body } = await api.post('/api/workspace/campaigns', owner, CREATIVE);
    const answered: string[] = [];
    for (const [action, who] of [['submit', owner], ['approve', ADMIN]] as const) answered.push(`${action} ${(await api.post(`/api/workspace/campaigns/${body.id}/${action}`, who)).status}`);
    // Should this wait fail, its message says what was answered and what arrived.
    await waitFor(
      () => {
        if (events.length !== 2) throw new Error(`answered ${answered.join(', ')}; received ${events.map((event) => `${event.type} ${event.aggregateVersion}`).join(', ') || 'nothing'}`);
        return true;
      },
      { message: 'the events of submit and approve' },
    );
    const mongo = await connectMongo({ url: infra.mongoUrl, dbName: infraEnv(infra, 'campaign').MONGO_DB as string });
    cleanup.push(() => mongo.close());
    const history = mongo.db!.collection('campaign_history');
    const campaigns = mongo.db!.collection('campaigns');
    const stored = () => campaigns.findOne({ _id: body.id as never });
    await waitFor(async () => (await pendingVersions(campaigns, body.id as number)).length === 0, { message: 'approve finished by its writer' });
    const approved = await history.findOne({ _id: `${body.id}:3` as never });
    const activation = { ...approved!.state, status: 'active' } as CampaignRecord;
    const at = new Date(Date.now() - 60_000);
    const data = { ...campaignStateOf(activation), name: activation.name, actorAccountId: ADMIN.accountId, reason: null };
    const event = createEnvelope('campaign.activated', String(body.id), 4, data as CampaignState, at);
    const change = { version: 4, at, actorAccountId: ADMIN.accountId, action: 'activated', from: 'approved', to: 'active', reason: null, state: activation, events: [event] };
    const { matchedCount } = await campaigns.updateOne({ _id: body.id as never, version: 3 }, { $set: { ...activation, version: 4, updatedAt: at }, $push: { pending: change }, $min: { pendingSince: at } } as never);
    expect(matchedCount).to.equal(1);
    return { api, campaignId: body.id as number, stored, history, events };
  }

  it("finishes a change whose writer died after its guarded write on the outbox relay's next pass: its history entry once, its event", async () => {
    const { api, campaignId, stored, history, events } = await activationLeftByDeadWriter('300', '6301');
    await waitFor(async () => (await stored())?.pendingSince === undefined, { message: 'the relay finished the change' });
    expect(await history.countDocuments({ entityId: campaignId })).to.equal(4);
    expect(await history.findOne({ _id: `${campaignId}:4` as never })).to.deep.include({ action: 'activated', from: 'approved', to: 'active' });
    await waitFor(() => events.length === 3, { message: 'the activation published' });
    expect(events[2]).to.include({ type: 'campaign.activated', aggregateVersion: 4 });
    const snapshot = await api.get('/internal/campaigns/active', null);
    expect(snapshot.body.items).to.have.length(1);
    expect(snapshot.body.items[0]).to.include({ campaignId, status: 'active', version: 4 });
  });

  it('decides a transition on the campaign as written, and finishes the change its writer left with its own', async () => {
    const { api, campaignId, stored, history, events } = await activationLeftByDeadWriter('3600000', '6302');
    expect((await api.get(`/api/workspace/campaigns/${campaignId}`, ADMIN)).body.status).to.equal('active');
    const activate = await api.post(`/api/workspace/campaigns/${campaignId}/activate`, ADMIN);
    expect(activate.status).to.equal(409);
    expect(activate.body.code).to.equal('invalid_transition');
    const pause = await api.post(`/api/workspace/campaigns/${campaignId}/pause`, ADMIN, { reason: 'checked' });
    expect(pause.status).to.equal(200);
    expect(pause.body).to.include({ status: 'paused' });
    await waitFor(async () => (await stored())?.pendingSince === undefined, { message: 'both changes finished by the pause' });
    expect(await stored()).to.deep.include({ version: 5, status: 'paused' });
    expect((await history.find({ entityId: campaignId }).sort({ version: 1 }).toArray()).map((entry) => entry.action)).to.deep.equal(['created', 'submitted', 'approved', 'activated', 'paused']);
    await waitFor(() => events.length === 4, { message: 'the activation and the pause published' });
    expect(events.slice(2).map((event) => [event.type, event.aggregateVersion])).to.deep.equal([
      ['campaign.activated', 4],
      ['campaign.paused', 5],
    ]);
  });

  it('answers the snapshot with a read alone: it writes nothing', async () => {
    const { api, campaignId, stored } = await activationLeftByDeadWriter('3600000', '6303');
    const before = await stored();
    const snapshot = await api.get('/internal/campaigns/active', null);
    expect(snapshot.status).to.equal(200);
    expect(snapshot.body.items.map((item: { campaignId: number }) => item.campaignId)).to.include(campaignId);
    expect(await stored()).to.deep.equal(before);
  });

  it('creates with a fresh id on two replicas in turn after one of them fell 300 ids behind', async function () {
    this.timeout(60_000);
    const infra = testInfra();
    const mongoOf = async () => {
      const mongo = await connectMongo({ url: infra.mongoUrl, dbName: infraEnv(infra, 'campaign').MONGO_DB as string });
      cleanup.push(() => mongo.close());
      return mongo;
    };
    const [first, second] = [new CampaignRepository(await mongoOf()), new CampaignRepository(await mongoOf())];
    await first.ensureIndexes();
    const clock = new ManualClock(Date.parse('2026-06-01T10:00:00Z'));
    const replica = (repository: CampaignRepository): CampaignDeps => ({ repository, clock, logger });
    const owner = (accountId: string) => ({ accountId, admin: false, displayName: `Owner ${accountId}` });
    const ids: number[] = [(await createCampaign(replica(first), owner('6501'), CREATIVE)).id];
    // The other replica creates 300 records meanwhile (three accounts of 100).
    for (let index = 0; index < 300; index += 1) ids.push((await createCampaign(replica(second), owner(String(6510 + Math.floor(index / 100))), CREATIVE)).id);
    for (let turn = 0; turn < 6; turn += 1) {
      const created = await createCampaign(replica(turn % 2 === 0 ? first : second), owner('6502'), CREATIVE);
      expect(ids, `create ${turn} got a fresh id`).to.not.include(created.id);
      ids.push(created.id);
    }
    expect(new Set(ids).size).to.equal(307);
  });

  describe('campaign counts of records that were never written', () => {
    /** A repository whose record writes fail like an unreachable database, before or after the insert. */
    class FailingRepository extends CampaignRepository {
      failures: Array<'before' | 'after'> = [];
      override async create(...args: Parameters<CampaignRepository['create']>): ReturnType<CampaignRepository['create']> {
        const failure = this.failures.shift();
        if (failure === 'before') throw new Error('connection reset before the insert');
        const created = await super.create(...args);
        if (failure === 'after') throw new Error('connection reset before the answer');
        return created;
      }
    }

    async function world() {
      const infra = testInfra();
      const mongo = await connectMongo({ url: infra.mongoUrl, dbName: infraEnv(infra, 'campaign').MONGO_DB as string });
      cleanup.push(async () => {
        await mongo.db!.dropDatabase();
        await mongo.close();
      });
      const repository = new FailingRepository(mongo);
      await repository.ensureIndexes();
      const clock = new ManualClock(Date.parse('2026-06-01T10:00:00Z'));
      const deps: CampaignDeps = { repository, clock, logger };
      const counts = mongo.db!.collection('campaign_counts');
      const countOf = async (accountId: string) => ((await counts.findOne({ _id: accountId as never }))?.count as number | undefined) ?? 0;
      return { counts, repository, clock, deps, countOf };
    }

    it('gives a count back when the create fails, and keeps it when the record was written after all', async () => {
      const { repository, deps, countOf } = await world();
      const owner = { accountId: '6401', admin: false, displayName: 'Owner 6401' };
      repository.failures = ['before', 'before', 'before', 'after'];
      for (let attempt = 0; attempt < 3; attempt += 1) {
        let failed = false;
        await createCampaign(deps, owner, CREATIVE).catch(() => (failed = true));
        expect(failed).to.equal(true);
      }
      expect(await countOf('6401'), 'three failed creates hold no count').to.equal(0);
      await createCampaign(deps, owner, CREATIVE).catch(() => undefined);
      expect(await countOf('6401'), 'the record written before the failure keeps its count').to.equal(1);
      expect((await listCampaigns(deps, { ownerAccountId: owner.accountId, status: null, search: null, ids: null }, { order: 'newest', after: null, limit: 50, count: false })).items).to.have.length(1);
    });

    it('gives back at the cap what a process that died between count and record left, once no create took a count for a while', async () => {
      const { counts, deps, clock, countOf } = await world();
      const owner = { accountId: '6402', admin: false, displayName: 'Owner 6402' };
      await createCampaign(deps, owner, CREATIVE);
      // Dead processes took the other 99 counts just now, and wrote no record.
      await counts.updateOne({ _id: '6402' as never }, { $set: { count: 100, lastTakenAt: clock.now() } });
      const refused = await createCampaign(deps, owner, CREATIVE).catch((error: unknown) => error as { status: number; code: string });
      expect(refused, 'a young count may be a create under way').to.deep.include({ status: 409, code: 'campaign_limit' });
      expect(await countOf('6402')).to.equal(100);
      clock.advance(11 * 60 * 1000);
      await createCampaign(deps, owner, CREATIVE);
      expect(await countOf('6402'), 'the one record, and the one just created').to.equal(2);
      expect((await listCampaigns(deps, { ownerAccountId: owner.accountId, status: null, search: null, ids: null }, { order: 'newest', after: null, limit: 50, count: false })).items).to.have.length(2);
    });

    it('starts the count of an account from the records it holds', async () => {
      const { counts, deps, countOf } = await world();
      const owner = { accountId: '6403', admin: false, displayName: 'Owner 6403' };
      for (let index = 0; index < 3; index += 1) await createCampaign(deps, owner, CREATIVE);
      await counts.deleteOne({ _id: '6403' as never }); // as a deployment from before the counts has it
      await createCampaign(deps, owner, CREATIVE);
      expect(await countOf('6403')).to.equal(4);
    });
  });

  it('serves the snapshot that an ActiveCampaignCache rebuilds from', async () => {
    const infra = testInfra();
    const { service } = await running(infra);
    const api = client(infra, service.url);
    const owner: Who = { accountId: '6101' };
    const ids: number[] = [];
    for (let index = 0; index < 2; index += 1) {
      const { body } = await api.post('/api/workspace/campaigns', owner, { ...CREATIVE, language: index === 0 ? 'tr' : 'all' });
      for (const [action, who] of [['submit', owner], ['approve', ADMIN], ['activate', ADMIN]] as const) {
        await api.post(`/api/workspace/campaigns/${body.id}/${action}`, who);
      }
      ids.push(body.id as number);
    }
    const { bus } = await listen(infra);
    cleanup.push(() => bus.close());
    const cache = new ActiveCampaignCache({
      bus,
      logger,
      loadSnapshot: async () => (await internalGet<{ items: never[] }>(infra.internalSecret, service.url, '/internal/campaigns/active')).items,
    });
    await cache.rebuild();
    expect(cache.size()).to.equal(2);
    expect(cache.get(ids[0]!)).to.include({ status: 'active', language: 'tr', version: 4, ownerAccountId: owner.accountId });
    expect(cache.get(ids[1]!)).to.include({ language: 'all' });
  });

  it('refuses to load a configuration without MONGO_DB, naming it', () => {
    const { MONGO_DB: _missing, ...env } = infraEnv(testInfra(), 'campaign');
    expect(() => loadConfig(env)).to.throw(ConfigError, /MONGO_DB/);
    expect(() => loadConfig({ ...env, MONGO_DB: '' })).to.throw(ConfigError, /MONGO_DB/);
    expect(() => loadConfig({ ...env, MONGO_DB: 'x', PORT: 'eighty' })).to.throw(ConfigError, /PORT/);
  });

  it('stops the process with exit code 1 and a message naming the missing setting', async () => {
    const { MONGO_DB: _missing, ...env } = infraEnv(testInfra(), 'campaign');
    const { code, stderr } = await runServiceMain('campaign', env as Record<string, string>);
    expect(code).to.equal(1);
    expect(stderr).to.match(/MONGO_DB/);
  });
});
