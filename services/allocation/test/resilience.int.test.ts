import { ConfigError } from '@pilot/platform';
import { generateApiKey } from '@pilot/publisher-keys';
import { reservedPort, infraEnv, runServiceMain, testInfra, waitFor } from '@pilot/testkit';
import amqplib from 'amqplib';
import { expect } from 'chai';
import request from 'supertest';
import { loadConfig } from '../src/config';
import type { RunningAllocation } from '../src/start';
import {
  activeCampaign,
  bearer,
  campaignSnapshot,
  getAd,
  publisherId,
  startAllocation,
  TestWorld,
  untilReady,
  type CampaignSnapshot,
} from './support';

function expectUnavailable(response: request.Response): void {
  expect(response.status).to.equal(503);
  expect(response.headers['content-type']).to.match(/^application\/problem\+json/);
  expect(response.body).to.include({ status: 503, code: 'service_unavailable' });
  expect(Number(response.headers['retry-after'])).to.be.at.least(1);
}

describe('allocation when its infrastructure fails', function () {
  this.timeout(30_000);

  describe('the broker', () => {
    const infra = testInfra();
    const world = new TestWorld(infra);
    let snapshot: CampaignSnapshot;
    let service: RunningAllocation;

    before(async () => {
      await world.ready();
      snapshot = await campaignSnapshot(infra, [activeCampaign({ language: 'en', ownerAccountId: '5100' })]);
      service = await startAllocation(infra, snapshot.url);
      await untilReady(service);
    });

    after(async () => {
      await service?.stop();
      await snapshot?.close();
      await world.close();
    });

    it('answers ad requests without waiting on the broker: the ad path publishes nothing', async () => {
      const key = await world.publisher(publisherId(), '6100');
      // The broker could confirm nothing published to a missing exchange; no answer depends on it.
      const connection = await amqplib.connect(infra.amqpUrl);
      try {
        const channel = await connection.createChannel();
        await channel.deleteExchange(infra.exchange);
      } finally {
        await connection.close();
      }
      try {
        for (let i = 0; i < 5; i += 1) await getAd(service, infra, '', bearer(key)).expect(200);
      } finally {
        const again = await amqplib.connect(infra.amqpUrl);
        try {
          await (await again.createChannel()).assertExchange(infra.exchange, 'topic', { durable: true });
        } finally {
          await again.close();
        }
      }
    });

    it('answers 503 and reports not ready once its broker connection is gone: its cache could miss a pause', async () => {
      const key = await world.publisher(publisherId(), '6101');
      await service.bus.close();
      expectUnavailable(await getAd(service, infra, '', bearer(key)));
      const ready = await request(service.url).get('/readyz').expect(503);
      expect(ready.body.checks.rabbitmq).to.equal('unavailable');
    });
  });

  describe('Redis', () => {
    const infra = testInfra();
    let snapshot: CampaignSnapshot;
    let service: RunningAllocation;

    before(async () => {
      snapshot = await campaignSnapshot(infra, [activeCampaign()]);
      const closedPort = await reservedPort();
      service = await startAllocation(infra, snapshot.url, { REDIS_URL: `redis://127.0.0.1:${closedPort}` });
    });

    after(async () => {
      await service?.stop();
      await snapshot?.close();
    });

    it('answers 503 with Retry-After, not 401 or 500, when Redis is unreachable', async () => {
      expectUnavailable(await getAd(service, infra, '', bearer(generateApiKey())));
      expectUnavailable(await getAd(service, infra, '?language=all', bearer(generateApiKey())));
    });

    it('still refuses a request without any key with 401 (no Redis needed to tell)', async () => {
      await getAd(service, infra, '').expect(401);
    });

    it('reports not ready, naming Redis', async () => {
      const ready = await request(service.url).get('/readyz').expect(503);
      expect(ready.body.checks.redis).to.equal('unavailable');
    });
  });

  describe('the campaign snapshot', () => {
    const infra = testInfra();
    const world = new TestWorld(infra);
    let snapshot: CampaignSnapshot | undefined;
    let service: RunningAllocation;
    let campaignPort: number;

    before(async () => {
      await world.ready();
      campaignPort = await reservedPort();
      service = await startAllocation(infra, `http://127.0.0.1:${campaignPort}`);
    });

    after(async () => {
      await service?.stop();
      await snapshot?.close();
      await world.close();
    });

    it('answers 503 and reports not ready until the campaign service has served a snapshot, then recovers by itself', async () => {
      const key = await world.publisher(publisherId(), '6200');
      expectUnavailable(await getAd(service, infra, '', bearer(key)));
      const notReady = await request(service.url).get('/readyz').expect(503);
      expect(notReady.body.checks.campaignSnapshot).to.equal('unavailable');

      // The campaign service comes up later, on the address allocation was given.
      const campaign = activeCampaign({ ownerAccountId: '5200' });
      snapshot = await campaignSnapshot(infra, [campaign], campaignPort);
      await untilReady(service);
      expect((await getAd(service, infra, '', bearer(key)).expect(200)).body.campaign_id).to.equal(campaign.campaignId);
    });
  });
});

describe('the campaign snapshot allocation starts from', function () {
  this.timeout(30_000);
  const infra = testInfra();
  const world = new TestWorld(infra);
  let snapshot: CampaignSnapshot;
  let service: RunningAllocation;

  before(async () => {
    await world.ready();
    const valid = activeCampaign({ language: 'ko', ownerAccountId: '5400' });
    const broken = { ...activeCampaign({ language: 'ko', ownerAccountId: '5401' }), format: 'video' } as unknown as typeof valid;
    const paused = activeCampaign({ language: 'ko', ownerAccountId: '5402', status: 'paused' });
    snapshot = await campaignSnapshot(infra, [valid, broken, paused]);
    service = await startAllocation(infra, snapshot.url);
    await untilReady(service);
  });

  after(async () => {
    await service?.stop();
    await snapshot?.close();
    await world.close();
  });

  it('loads the valid active campaigns of the snapshot, dropping items that break the contract and non-active ones', async () => {
    expect(service.index.size()).to.equal(1);
    expect(snapshot.served).to.be.at.least(1);
    const key = await world.publisher(publisherId(), '6400');
    for (let i = 0; i < 3; i += 1) {
      expect((await getAd(service, infra, '?language=ko', bearer(key)).expect(200)).body.campaign_id).to.equal(snapshot.items[0]?.campaignId);
    }
  });
});

describe('two allocation replicas', function () {
  this.timeout(30_000);
  const infra = testInfra();
  const world = new TestWorld(infra);
  let snapshot: CampaignSnapshot;
  let replicas: RunningAllocation[] = [];

  before(async () => {
    await world.ready();
    snapshot = await campaignSnapshot(infra, []);
    replicas = [await startAllocation(infra, snapshot.url), await startAllocation(infra, snapshot.url)];
    await Promise.all(replicas.map(untilReady));
  });

  after(async () => {
    await Promise.all(replicas.map((replica) => replica.stop()));
    await snapshot?.close();
    await world.close();
  });

  it('share one limit: 30 requests on each, then the 61st is refused by either with 429', async () => {
    const key = await world.publisher(publisherId(), '6300');
    const [first, second] = replicas as [RunningAllocation, RunningAllocation];
    for (let i = 0; i < 30; i += 1) {
      await getAd(first, infra, '?language=ja', bearer(key)).expect(204);
      await getAd(second, infra, '?language=ja', bearer(key)).expect(204);
    }
    const refused = await getAd(second, infra, '?language=ja', bearer(key)).expect(429);
    expect(refused.headers['retry-after']).to.match(/^[0-9]+$/);
    await getAd(first, infra, '?language=ja', bearer(key)).expect(429);
  });

  it('both select an activated campaign and both drop it when it is paused', async () => {
    const key = await world.publisher(publisherId(), '6301');
    const campaign = activeCampaign({ language: 'pl', ownerAccountId: '5300', version: 3 });
    await world.activated(campaign);
    await waitFor(() => replicas.every((replica) => replica.index.has(campaign.campaignId)), { message: 'both replicas activated it' });
    for (const replica of replicas) {
      expect((await getAd(replica, infra, '?language=pl', bearer(key)).expect(200)).body.campaign_id).to.equal(campaign.campaignId);
    }
    await world.paused(campaign, 4);
    await waitFor(() => replicas.every((replica) => !replica.index.has(campaign.campaignId)), { message: 'both replicas dropped it' });
    for (const replica of replicas) await getAd(replica, infra, '?language=pl', bearer(key)).expect(204);
  });
});

describe('allocation configuration', () => {
  it('refuses to load without TOKEN_SECRET, naming it', () => {
    const env = { ...infraEnv(testInfra(), 'allocation') };
    delete env.TOKEN_SECRET;
    expect(() => loadConfig(env)).to.throw(ConfigError, /TOKEN_SECRET/);
  });

  it('stops the process with a message naming each missing setting', async function () {
    this.timeout(30_000);
    const result = await runServiceMain('allocation', { NODE_ENV: 'production' });
    expect(result.code).to.equal(1);
    for (const name of ['TOKEN_SECRET', 'PORT', 'AMQP_URL', 'REDIS_URL', 'INTERNAL_SECRET', 'PUBLIC_BASE_URL', 'CAMPAIGN_URL']) {
      expect(result.stderr).to.contain(name);
    }
  });
});
