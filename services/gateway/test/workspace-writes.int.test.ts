import { createRedis, EvictionPolicyError, waitForRedis } from '@pilot/platform';
import { OwnRedis, reservedPort } from '@pilot/testkit';
import { expect } from 'chai';
import request from 'supertest';
import { standIn, startGateway, type StandIn } from './support';

const SITE = 'http://127.0.0.1:8080';

describe('gateway: operator and internal paths in any letter case', () => {
  it('routes no letter case of /metrics, /readyz, /livez or an internal path to a service', async () => {
    const web = await standIn((_req, res) => res.end('web'));
    const gateway = await startGateway({ web: web.url, identity: web.url, allocation: web.url });
    try {
      for (const path of ['/METRICS', '/Metrics', '/metrics/', '/ReadyZ', '/LIVEZ', '/Internal/sessions/resolve', '/API/INTERNAL/x', '/Api/Internal']) {
        const answer = await request(gateway.url).get(path);
        expect(answer.status, path).to.equal(404);
        expect(answer.body.code, path).to.equal('route_not_found');
      }
      expect(web.requests.map((req) => req.url)).to.deep.equal([]);
      await request(gateway.url).get('/Some/Page').expect(200);
    } finally {
      await gateway.stop();
      await web.close();
    }
  });
});

describe('gateway: workspace writes per account', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    while (cleanup.length > 0) await cleanup.pop()?.();
  });

  /** publisher-identity standing in: session `session-of-<id>...` is account <id>; every workspace call 201. */
  async function identity(): Promise<StandIn> {
    const upstream = await standIn((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url?.startsWith('/internal/sessions/resolve')) {
        const session = String(req.headers['x-pilot-session'] ?? '');
        const accountId = /^session0of0([0-9]+)x+$/.exec(session)?.[1];
        res.statusCode = accountId ? 200 : 401;
        res.end(JSON.stringify(accountId ? { accountId, displayName: accountId, admin: false } : {}));
        return;
      }
      req.resume();
      req.on('end', () => {
        res.statusCode = req.method === 'GET' ? 200 : 201;
        res.end('{}');
      });
    });
    cleanup.push(upstream.close);
    return upstream;
  }

  const cookieOf = (accountId: string) => `pilot_session=session0of0${accountId}${'x'.repeat(16)}`;

  it('refuses an account its writes over WORKSPACE_WRITE_LIMIT_POINTS a minute with 429 rate_limited and Retry-After; reads and other accounts go on', async () => {
    const upstream = await identity();
    const gateway = await startGateway({ identity: upstream.url }, { WORKSPACE_WRITE_LIMIT_POINTS: '3' });
    cleanup.push(gateway.stop);
    const write = (accountId: string) =>
      request(gateway.url).post('/api/workspace/publishers').set('Origin', SITE).set('Cookie', cookieOf(accountId)).send({ type: 'bot', link: '@a_bot' });
    for (let i = 0; i < 3; i += 1) await write('501').expect(201);
    const refused = await write('501').expect(429);
    expect(refused.headers['content-type']).to.match(/^application\/problem\+json/);
    expect(refused.body.code).to.equal('rate_limited');
    expect(Number(refused.headers['retry-after'])).to.be.within(1, 60);
    await request(gateway.url).delete('/api/workspace/publishers/1/test-key').set('Origin', SITE).set('Cookie', cookieOf('501')).expect(429);
    await request(gateway.url).get('/api/workspace/publishers').set('Cookie', cookieOf('501')).expect(200);
    await write('502').expect(201);
    // The refused writes never reached the service.
    const forwardedWrites = upstream.requests.filter((req) => req.method !== 'GET');
    expect(forwardedWrites).to.have.length(4);
  });

  it('limits 120 writes a minute by default', async () => {
    const upstream = await identity();
    const gateway = await startGateway({ identity: upstream.url });
    cleanup.push(gateway.stop);
    const answers = [];
    for (let i = 0; i < 121; i += 1) {
      answers.push((await request(gateway.url).post('/api/workspace/publishers').set('Origin', SITE).set('Cookie', cookieOf('503')).send({ type: 'bot', link: '@a_bot' })).status);
    }
    expect(answers.filter((status) => status === 201)).to.have.length(120);
    expect(answers.at(-1)).to.equal(429);
  });
});

describe('gateway: the Redis it keeps limits in', function () {
  this.timeout(30_000);

  it('refuses to start in production against a Redis that may evict keys, and starts against one that does not', async () => {
    const redis = new OwnRedis(await reservedPort(), ['--maxmemory-policy', 'volatile-lru']);
    await redis.start();
    try {
      const production = { NODE_ENV: 'production', REDIS_URL: redis.url, PUBLIC_BASE_URL: 'https://pilot.example' };
      const refusal = await startGateway({}, production).then(
        async (gateway) => {
          await gateway.stop();
          return null;
        },
        (error: unknown) => error,
      );
      expect(refusal).to.be.instanceOf(EvictionPolicyError);
      expect((refusal as Error).message).to.contain('volatile-lru');
      const client = createRedis(redis.url, 'gateway-test');
      await waitForRedis(client);
      await client.config('SET', 'maxmemory-policy', 'noeviction');
      client.disconnect();
      const gateway = await startGateway({}, production);
      await gateway.stop();
    } finally {
      await redis.remove();
    }
  });
});
