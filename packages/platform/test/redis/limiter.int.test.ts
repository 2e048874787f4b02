import { ServiceUnavailableError } from '../../src/infrastructure-errors';
import { createRedis, RedisLimiter, waitForRedis } from '../../src/redis';
import { testInfra } from '@pilot/testkit';
import { expect } from 'chai';

describe('RedisLimiter', () => {
  it('allows the configured number of calls per key, then tells how long to wait', async () => {
    const infra = testInfra();
    const redis = createRedis(infra.redisUrl, 'limiter-test');
    try {
      await waitForRedis(redis);
      const limiter = new RedisLimiter(redis, { keyPrefix: `${infra.redisPrefix}test`, points: 2, windowSeconds: 30 });
      expect(await limiter.consume('203.0.113.1')).to.include({ allowed: true });
      expect(await limiter.consume('203.0.113.1')).to.include({ allowed: true });
      const third = await limiter.consume('203.0.113.1');
      expect(third.allowed).to.equal(false);
      expect(third.retryAfterSeconds).to.be.within(1, 30);
      expect(third.remaining).to.equal(0);
      expect(await limiter.consume('203.0.113.2')).to.include({ allowed: true });
    } finally {
      redis.disconnect();
    }
  });

  it('fails with ServiceUnavailableError (answered 503) when Redis is unreachable', async () => {
    const redis = createRedis('redis://127.0.0.1:1', 'limiter-test-down');
    try {
      const limiter = new RedisLimiter(redis, { keyPrefix: 'unused:', points: 2, windowSeconds: 30 });
      let failure: unknown;
      try {
        await limiter.consume('203.0.113.1');
      } catch (error) {
        failure = error;
      }
      expect(failure).to.be.instanceOf(ServiceUnavailableError);
    } finally {
      redis.disconnect();
    }
  });
});
