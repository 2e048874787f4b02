import { ConfigError } from '@pilot/platform';
import { CountJournal } from '@pilot/counting';
import { TotalsStore } from '@pilot/counting/totals';
import { connectMongo } from '@pilot/storage';
import { infraEnv, ManualClock, runServiceMain, TcpRelay, testInfra, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import request from 'supertest';
import { loadConfig } from '../src/config';
import type { RunningTracking } from '../src/start';
import { activeCampaign, allocate, campaignSnapshot, gatewaySigned, signedPost, startTracking, TestWorld } from './support';

describe('tracking: restarts, faults and configuration', () => {
  describe('a folder that died in the middle of a fold', () => {
    const infra = testInfra();
    const world = new TestWorld(infra);
    const cleanup: Array<() => Promise<void>> = [];

    before(() => world.ready());
    after(async () => {
      while (cleanup.length > 0) await cleanup.pop()?.();
      await world.close();
    });

    it('counts every fact exactly once when another folder takes over, and every read in between is exact', async () => {
      const snapshot = await campaignSnapshot([activeCampaign(31, '8001'), activeCampaign(32, '8003')]);
      cleanup.push(snapshot.close);
      const clock = new ManualClock(new Date('2026-05-01T10:00:00Z').getTime());
      const tracking = await startTracking(infra, snapshot.url, { clock }, { COUNT_FOLD_INTERVAL_MS: '0' });
      cleanup.push(tracking.stop);
      const key = await world.approvedPublisher(41, '8002');
      await world.approvedPublisher(42, '8004');
      const allocations = Array.from({ length: 12 }, (_, index) =>
        allocate(infra, clock, { campaignId: 31 + (index % 2), publisherId: 41 + (index % 3 === 0 ? 1 : 0), campaignOwner: index % 2 ? '8003' : '8001', publisherOwner: index % 3 === 0 ? '8004' : '8002' }),
      );
      for (const allocation of allocations) await world.countAllocation(allocation.claims);
      for (const allocation of allocations.filter((a) => a.claims.publisherId === 41).slice(0, 4)) {
        const path = '/api/network/delivery';
        await signedPost(infra, tracking.url, path).set('authorization', `Bearer ${key}`).set('content-type', 'application/json').send(JSON.stringify({ token: allocation.deliveryToken })).expect(200);
      }
      const views = [{ accountId: '1', admin: true }, { accountId: '8001' }, { accountId: '8002' }, { accountId: '8004' }];
      const read = () => Promise.all(views.map(async (who) => (await request(tracking.url).get('/api/workspace/stats').set(gatewaySigned(infra, 'GET', '/api/workspace/stats', who)).expect(200)).body));
      const expected = await read();
      expect(expected[0]).to.include({ adRequests: 12, confirmedDeliveries: 4 });

      // The dying folder: it claims the counts as a fold and writes part of it to MongoDB, then is gone.
      const journal = new CountJournal(world.redis, infra.redisPrefix);
      const mongo = await connectMongo({ url: infra.mongoUrl, dbName: infraEnv(infra, 'tracking').MONGO_DB! });
      cleanup.push(() => mongo.close());
      for (const interval of await journal.closedIntervals(new Date(8.64e15), 0)) await journal.claim(interval);
      const [seq] = await journal.pendingFolds();
      const [fold] = await journal.readGrains([seq!], await world.redis.smembers(`${journal.keys.foldPrefix(seq!)}grains`));
      const counts = fold!.counts;
      const owners = await journal.owners(['c:31', 'c:32', 'p:41', 'p:42']);
      const half = new Map([...counts].slice(0, Math.ceil(counts.size / 2)));
      await new TotalsStore(mongo, 2000).applyFolds([{ seq: seq!, counts: half }], owners);
      expect(await read(), 'read with the fold half applied').to.deep.equal(expected);

      // Another folder takes over: it applies the whole fold, the half already there only once.
      const pass = await tracking.folder.foldNow(true);
      expect(pass).to.include({ held: true, applied: 1 });
      expect(await journal.pendingFolds()).to.deep.equal([]);
      expect(await read(), 'read after the fold').to.deep.equal(expected);

      // The same fold applied yet again (a folder that wakes up late) changes nothing.
      await new TotalsStore(mongo, 2000).applyFolds([{ seq: seq!, counts }], owners);
      expect(await read(), 'read after a repeated fold').to.deep.equal(expected);
    });
  });

  describe('unreachable dependencies', () => {
    const infra = testInfra();
    const world = new TestWorld(infra);
    const redisLink = new TcpRelay(infra.redisUrl);
    const mongoLink = new TcpRelay(infra.mongoUrl);
    let tracking: RunningTracking;
    let key: string;
    const clock = new ManualClock();
    const ids = { campaignId: 51, publisherId: 61, campaignOwner: '9001', publisherOwner: '9002' };
    let snapshotClose: () => Promise<void>;

    before(async () => {
      await world.ready();
      await redisLink.open();
      await mongoLink.open();
      const snapshot = await campaignSnapshot([activeCampaign(51, '9001')]);
      snapshotClose = snapshot.close;
      key = await world.approvedPublisher(ids.publisherId, ids.publisherOwner);
      tracking = await startTracking(infra, snapshot.url, { clock }, {
        REDIS_URL: redisLink.url,
        MONGO_URL: mongoLink.url,
        DEPENDENCY_TIMEOUT_MS: '500',
      });
    });

    after(async () => {
      await tracking?.stop();
      await redisLink.cut();
      await mongoLink.cut();
      await snapshotClose?.();
      await world.close();
    });

    function deliver(token: string) {
      return signedPost(infra, tracking.url, '/api/network/delivery')
        .set('authorization', `Bearer ${key}`)
        .set('content-type', 'application/json')
        .send(JSON.stringify({ token }));
    }

    function click(path: string) {
      return request(tracking.url).get(path).set(gatewaySigned(infra, 'GET', path)).redirects(0);
    }

    it('answers 503 with Retry-After while Redis is unreachable, and recovers by itself', async () => {
      await waitFor(async () => (await click(allocate(infra, clock, ids).clickPath)).status === 302, { message: 'cache not loaded' });
      await redisLink.cut();
      const delivery = await deliver(allocate(infra, clock, ids).deliveryToken);
      expect(delivery.status).to.equal(503);
      expect(delivery.headers['retry-after']).to.match(/^[0-9]+$/);
      expect(delivery.body.code).to.equal('service_unavailable');
      const clicked = await click(allocate(infra, clock, ids).clickPath);
      expect(clicked.status).to.equal(503);
      await redisLink.open();
      await waitFor(async () => (await deliver(allocate(infra, clock, ids).deliveryToken)).status === 200, { timeoutMs: 15_000, message: 'no recovery' });
    });

    it('keeps confirming and redirecting while MongoDB is unreachable, answers the totals 503, and catches up by itself', async () => {
      const path = '/api/workspace/stats';
      const totals = () => request(tracking.url).get(path).set(gatewaySigned(infra, 'GET', path, { accountId: '9001' }));
      const before = (await totals().expect(200)).body.confirmedDeliveries as number;
      await mongoLink.cut();
      // Counting needs only Redis: the network API does not depend on the database.
      expect((await deliver(allocate(infra, clock, ids).deliveryToken)).status).to.equal(200);
      expect((await click(allocate(infra, clock, ids).clickPath)).status).to.equal(302);
      const stats = await totals();
      expect(stats.status).to.equal(503);
      expect(stats.headers['retry-after']).to.match(/^[0-9]+$/);
      await mongoLink.open();
      await waitFor(async () => (await totals()).status === 200, { timeoutMs: 20_000, message: 'no recovery' });
      expect((await totals().expect(200)).body.confirmedDeliveries).to.equal(before + 1);
    });
  });

  describe('the campaign snapshot', () => {
    const infra = testInfra();
    const world = new TestWorld(infra);
    after(() => world.close());

    it('starts without the campaign service, is not ready and answers clicks 503 until the snapshot loads', async () => {
      await world.ready();
      const snapshot = await campaignSnapshot([activeCampaign(71, '9101')], true);
      const clock = new ManualClock();
      const tracking = await startTracking(infra, snapshot.url, { clock });
      try {
        const ids = { campaignId: 71, publisherId: 81, campaignOwner: '9101', publisherOwner: '9102' };
        const key = await world.approvedPublisher(81, '9102');
        const notReady = await request(tracking.url).get('/readyz').expect(503);
        expect(notReady.body.checks).to.deep.equal({ mongodb: 'ok', redis: 'ok', rabbitmq: 'ok', campaigns: 'unavailable' });
        const a = allocate(infra, clock, ids);
        const early = await request(tracking.url).get(a.clickPath).set(gatewaySigned(infra, 'GET', a.clickPath)).redirects(0);
        expect(early.status).to.equal(503);
        expect(early.headers['retry-after']).to.match(/^[0-9]+$/);
        await signedPost(infra, tracking.url, '/api/network/delivery')
          .set('authorization', `Bearer ${key}`)
          .set('content-type', 'application/json')
          .send(JSON.stringify({ token: a.deliveryToken }))
          .expect(200);

        snapshot.failing = false;
        await waitFor(async () => (await request(tracking.url).get('/readyz')).status === 200, { timeoutMs: 15_000, message: 'never ready' });
        const later = await request(tracking.url).get(a.clickPath).set(gatewaySigned(infra, 'GET', a.clickPath)).redirects(0);
        expect(later.status).to.equal(302);
        expect(later.headers.location).to.equal('https://advertiser.example/c/71');
      } finally {
        await tracking.stop();
        await snapshot.close();
      }
    });
  });

  describe('configuration', () => {
    it('refuses a configuration without TOKEN_SECRET or MONGO_DB, naming each', () => {
      const env = { ...infraEnv(testInfra(), 'tracking') };
      delete env.TOKEN_SECRET;
      delete env.MONGO_DB;
      let refused: unknown;
      try {
        loadConfig(env);
      } catch (error) {
        refused = error;
      }
      expect(refused).to.be.instanceOf(ConfigError);
      expect((refused as ConfigError).variables).to.have.keys('TOKEN_SECRET', 'MONGO_DB');
      expect((refused as ConfigError).message).to.match(/TOKEN_SECRET is required but missing/);
    });

    it('stops the process with exit code 1 naming a missing setting', async () => {
      const result = await runServiceMain('tracking', { NODE_ENV: 'production', PORT: '0' });
      expect(result.code).to.equal(1);
      expect(result.stderr).to.match(/TOKEN_SECRET is required but missing/);
      expect(result.stderr).to.match(/MONGO_DB is required but missing/);
    });
  });
});
