import { createHash } from 'node:crypto';
import { ServiceUnavailableError } from '../../src/infrastructure-errors';
import { testInfra } from '@pilot/testkit';
import { expect } from 'chai';
import { createRedis, EndedSessionMarkers, endedMarkerTtlMs, SESSION_CACHE_MAX_MS, waitForRedis } from '../../src/redis';

describe('EndedSessionMarkers', () => {
  const sessionId = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789_-abcd';

  it('marks a session ended under the SHA-256 of its id, never the id itself, for the given time', async () => {
    const infra = testInfra();
    const redis = createRedis(infra.redisUrl, 'ended-sessions-test');
    try {
      await waitForRedis(redis);
      const markers = new EndedSessionMarkers(redis, infra.redisPrefix);
      expect(await markers.hasEnded(sessionId)).to.equal(false);
      await markers.markEnded(sessionId, 90_000);
      expect(await markers.hasEnded(sessionId)).to.equal(true);
      expect(await markers.hasEnded(`${sessionId}x`)).to.equal(false);
      const keys = await redis.keys(`${infra.redisPrefix}*`);
      expect(keys).to.deep.equal([`${infra.redisPrefix}session-ended:${createHash('sha256').update(sessionId).digest('hex')}`]);
      expect(await redis.pttl(keys[0]!)).to.be.within(80_000, 90_000);
      await redis.del(keys[0]!);
    } finally {
      redis.disconnect();
    }
  });

  it('keeps a marker for the rest of the session and the longest a gateway caches one', () => {
    const now = new Date('2026-06-01T12:00:00Z');
    expect(endedMarkerTtlMs(new Date('2026-06-01T13:00:00Z'), now)).to.equal(3_600_000 + SESSION_CACHE_MAX_MS);
    expect(endedMarkerTtlMs(new Date('2026-06-01T11:00:00Z'), now), 'a session already expired').to.equal(SESSION_CACHE_MAX_MS);
  });

  it('fails the write with ServiceUnavailableError and the check with a rejection when Redis is unreachable', async () => {
    const redis = createRedis('redis://127.0.0.1:1', 'ended-sessions-test-down');
    try {
      const markers = new EndedSessionMarkers(redis, 'unused:');
      let written: unknown;
      await markers.markEnded(sessionId, 1000).catch((error: unknown) => (written = error));
      expect(written).to.be.instanceOf(ServiceUnavailableError);
      let checked: unknown;
      await markers.hasEnded(sessionId).catch((error: unknown) => (checked = error));
      expect(checked).to.be.instanceOf(Error);
    } finally {
      redis.disconnect();
    }
  });
});
