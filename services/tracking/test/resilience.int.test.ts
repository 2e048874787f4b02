import { ConfigError } from '@pilot/config';
import { infraEnv, ManualClock, runServiceMain, TcpRelay, testInfra, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import request from 'supertest';
import { loadConfig } from '../src/config';
import type { RunningTracking } from '../src/start';
import { activeCampaign, allocate, campaignSnapshot, gatewaySigned, startTracking, TestWorld } from './support';

describe('tracking: restarts, faults and configuration', () => {
  describe('a consumer killed before acking', () => {
    const infra = testInfra();
    const world = new TestWorld(infra);
    const cleanup: Array<() => Promise<void>> = [];

    before(() => world.ready());
    after(async () => {
      while (cleanup.length > 0) await cleanup.pop()?.();
      await world.close();
    });

    it('still counts every allocation exactly once after a stop and a restart', async () => {
      const snapshot = await campaignSnapshot([]);
      cleanup.push(snapshot.close);
      const ids = { campaignId: 31, publisherId: 41, campaignOwner: '8001', publisherOwner: '8002' };
      const clock = new ManualClock();

      // The first process writes records but never gets to ack them: it is stopped while they are in flight.
      let release!: () => void;
      const gate = new Promise<void>((done) => {
        release = done;
      });
      const writtenNotAcked = new Set<string>();
      const first = await startTracking(infra, snapshot.url, {
        clock,
        hooks: {
          afterAllocationRecorded: async (allocationId) => {
            writtenNotAcked.add(allocationId);
            await gate;
          },
        },
      });
      const before = Array.from({ length: 10 }, () => allocate(infra, clock, ids));
      for (const allocation of before) await world.publishAllocation(allocation.claims);
      await waitFor(() => writtenNotAcked.size === 10, { message: 'first process did not write its records' });
      await first.stop();
      release();

      // While tracking is down, the ad endpoint keeps answering: its events wait in the durable queue.
      const during = Array.from({ length: 10 }, () => allocate(infra, clock, ids));
      for (const allocation of during) await world.publishAllocation(allocation.claims);

      const redelivered = new Set<string>();
      const second = await startTracking(infra, snapshot.url, {
        clock,
        hooks: { afterAllocationRecorded: async (allocationId) => void redelivered.add(allocationId) },
      });
      cleanup.push(second.stop);
      await waitFor(() => redelivered.size === 20, { message: 'not every allocation reached the restarted process' });
      for (const allocation of before) expect(redelivered.has(allocation.claims.allocationId)).to.equal(true);

      const path = '/api/workspace/stats';
      const answer = await request(second.url).get(path).set(gatewaySigned(infra, 'GET', path, { accountId: '1', admin: true })).expect(200);
      expect(answer.body.adRequests).to.equal(20);
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
      return request(tracking.url)
        .post('/api/network/delivery')
        .set(gatewaySigned(infra, 'POST', '/api/network/delivery'))
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

    it('answers 503 with Retry-After while MongoDB is unreachable, and recovers by itself', async () => {
      await mongoLink.cut();
      const delivery = await deliver(allocate(infra, clock, ids).deliveryToken);
      expect(delivery.status).to.equal(503);
      expect(delivery.headers['retry-after']).to.match(/^[0-9]+$/);
      const clicked = await click(allocate(infra, clock, ids).clickPath);
      expect(clicked.status).to.equal(503);
      const path = '/api/workspace/stats';
      const stats = await request(tracking.url).get(path).set(gatewaySigned(infra, 'GET', path, { accountId: '9001' }));
      expect(stats.status).to.equal(503);
      await mongoLink.open();
      await waitFor(async () => (await deliver(allocate(infra, clock, ids).deliveryToken)).status === 200, { timeoutMs: 20_000, message: 'no recovery' });
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
        await request(tracking.url)
          .post('/api/network/delivery')
          .set(gatewaySigned(infra, 'POST', '/api/network/delivery'))
          .set('authorization', `Bearer ${key}`)
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
