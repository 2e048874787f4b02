import { OwnRedis, reservedPort } from '@pilot/testkit';
import { expect } from 'chai';
import { checkEvictionPolicy, createRedis, EvictionPolicyError, evictionPolicyOf, waitForRedis, type Redis } from '../../src/redis';

describe('redis: the eviction policy a service starts with (a redis-server of its own)', function () {
  this.timeout(30_000);
  let server: OwnRedis;
  let redis: Redis;
  const warnings: string[] = [];
  const logger = { warn: (_details: object, message: string) => void warnings.push(message) };

  before(async () => {
    server = new OwnRedis(await reservedPort(), ['--maxmemory', '64mb', '--maxmemory-policy', 'allkeys-lru']);
    await server.start();
    redis = createRedis(server.url, 'eviction-test');
    await waitForRedis(redis);
  });
  after(async () => {
    redis?.disconnect();
    await server?.remove();
  });

  it('refuses a Redis that may evict keys in production, naming the policy, and warns loudly elsewhere', async () => {
    expect(await evictionPolicyOf(redis)).to.equal('allkeys-lru');
    const refusal = await checkEvictionPolicy(redis, { production: true, logger }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refusal).to.be.instanceOf(EvictionPolicyError);
    expect((refusal as Error).message).to.contain('allkeys-lru').and.to.contain('noeviction');
    warnings.length = 0;
    await checkEvictionPolicy(redis, { production: false, logger });
    expect(warnings).to.have.length(1);
    expect(warnings[0]).to.contain('REDIS MAY EVICT KEYS').and.to.contain('allkeys-lru');
  });

  it('accepts noeviction silently, in production too', async () => {
    await redis.config('SET', 'maxmemory-policy', 'noeviction');
    warnings.length = 0;
    await checkEvictionPolicy(redis, { production: true, logger });
    expect(warnings).to.deep.equal([]);
  });
});
