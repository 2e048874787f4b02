/**
 * What an ad request whose count Redis answers after the deadline leaves behind (docs/counting.md, a late
 * answer): the caller answers 503, and the request is counted and holds its point of the limit, as Redis
 * ran it; a request that never reached Redis counts nothing.
 */
import { createRedis, isInfrastructureError, waitForRedis, type Redis } from '@pilot/platform';
import { TcpRelay, testInfra, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { countKeys, CountRecorder, UnfoldedCounts } from '../src';

describe('counting: an ad request whose count is answered after the deadline (real Redis through a relay)', function () {
  this.timeout(30_000);
  const infra = testInfra();
  const relay = new TcpRelay(infra.redisUrl);
  let direct: Redis;
  let late: Redis;
  const at = new Date('2026-04-02T10:00:00Z');
  const limit = { points: 60, windowSeconds: 60 };
  const allocation = (allocationId: string) => ({
    allocationId,
    campaignId: 7,
    publisherId: 8,
    campaignOwnerAccountId: '701',
    publisherOwnerAccountId: '801',
    allocatedAt: at,
  });

  before(async () => {
    await relay.open();
    direct = createRedis(infra.redisUrl, 'late-answer-direct');
    late = createRedis(relay.url, 'late-answer-relay');
    await Promise.all([waitForRedis(direct), waitForRedis(late)]);
  });
  after(async () => {
    late?.disconnect();
    const keys = await direct.keys(`${infra.redisPrefix}*`);
    if (keys.length > 0) await direct.del(...keys);
    direct?.disconnect();
    await relay.cut();
  });

  const adRequestsOf = async (grain: string) => {
    const { parts } = await new UnfoldedCounts(direct, infra.redisPrefix, 2000).read([grain]);
    return parts.reduce((sum, part) => sum + (part.fields.get('2026-04-02|adRequests') ?? 0), 0);
  };

  it('answers 503 (a fault of infrastructure) and leaves the request counted once, holding its point of the limit', async () => {
    const recorder = new CountRecorder(late, infra.redisPrefix, 200);
    relay.delayAnswers(600);
    const failure = await recorder.countAdRequest(8, limit, allocation('late-1'), at).then(
      () => null,
      (error: unknown) => error,
    );
    expect(isInfrastructureError(failure), String(failure)).to.equal(true);
    // The script ran in Redis all the same: one ad request in the totals, one point of the window taken.
    await waitFor(async () => (await adRequestsOf('p:8')) === 1, { message: 'the late request counted' });
    expect(Number(await direct.get(countKeys(infra.redisPrefix).adRequestLimit(8)))).to.equal(1);
    // The publisher's retry is a request of its own: counted on its own, once.
    const retry = await new CountRecorder(direct, infra.redisPrefix, 2000).countAdRequest(8, limit, allocation('late-2'), at);
    expect(retry).to.include({ counted: true, consumed: 2 });
    expect(await adRequestsOf('p:8')).to.equal(2);
  });
});
