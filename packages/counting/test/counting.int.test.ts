import { createLogger } from '@pilot/logging';
import { connectMongo, type Connection } from '@pilot/mongo';
import { createRedis, waitForRedis, type Redis } from '@pilot/redis';
import { ManualClock, testInfra } from '@pilot/testkit';
import { expect } from 'chai';
import { COUNT_FOLDING, CountFolder, CountJournal, CountRecorder, grainDaysOf, TotalsStore, UnfoldedCounts } from '../src';

describe('counting pipeline (real Redis and MongoDB-compatible server)', () => {
  const infra = testInfra();
  const logger = createLogger({ service: 'counting-test', level: 'silent' });
  let redis: Redis;
  let mongo: Connection;
  let recorder: CountRecorder;
  let unfolded: UnfoldedCounts;
  let totals: TotalsStore;
  const clock = new ManualClock(new Date('2026-04-01T10:00:00Z').getTime());
  const allocation = (allocationId: string) => ({
    allocationId,
    campaignId: 5,
    publisherId: 6,
    campaignOwnerAccountId: '501',
    publisherOwnerAccountId: '601',
    allocatedAt: clock.now(),
  });
  const limit = { points: 60, windowSeconds: 60 };

  before(async () => {
    redis = createRedis(infra.redisUrl, 'counting-test');
    await waitForRedis(redis);
    mongo = await connectMongo({ url: infra.mongoUrl, dbName: `counting_${infra.runId}` });
    recorder = new CountRecorder(redis, infra.redisPrefix, 2000);
    unfolded = new UnfoldedCounts(redis, infra.redisPrefix, 2000);
    totals = new TotalsStore(mongo, 5000);
  });

  after(async () => {
    await mongo.db!.dropDatabase();
    await mongo.close();
    const keys = await redis.keys(`${infra.redisPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  /** The grain's figures as a stats read sees them: MongoDB's document plus what Redis has not folded. */
  async function figures(grain: string): Promise<Record<string, number>> {
    const stored = (await totals.read([grain])).get(grain);
    const { parts } = await unfolded.read([grain]);
    return grainDaysOf(stored?.days, stored?.lastFold ?? 0, parts)['2026-04-01'] ?? {};
  }

  it('counts an ad request once even when the same call is sent again (a resend after a lost answer)', async () => {
    const first = await recorder.countAdRequest(6, limit, allocation('a-1'), clock.now());
    const again = await recorder.countAdRequest(6, limit, allocation('a-1'), clock.now());
    expect(first).to.include({ counted: true, allowed: true, consumed: 1 });
    expect(again).to.include({ counted: true, allowed: true });
    expect((await figures('p:6')).adRequests).to.equal(1);
  });

  it('refuses the request over the limit and counts nothing for it', async () => {
    for (let i = 2; i <= 60; i += 1) await recorder.countAdRequest(6, limit, allocation(`a-${i}`), clock.now());
    const over = await recorder.countAdRequest(6, limit, allocation('a-61'), clock.now());
    expect(over).to.include({ counted: false, allowed: false, consumed: 61 });
    const noCreative = await recorder.countAdRequest(7, limit, null, clock.now());
    expect(noCreative).to.include({ counted: false, allowed: true, consumed: 1 });
    expect((await figures('p:6')).adRequests).to.equal(60);
  });

  it('counts a first confirmation once per allocation', async () => {
    expect(await recorder.countOnce('confirmedDeliveries', 'a-1', allocation('a-1'), clock.now())).to.equal(true);
    expect(await recorder.countOnce('confirmedDeliveries', 'a-1', allocation('a-1'), clock.now())).to.equal(false);
    expect((await figures('cp:5:6')).confirmedDeliveries).to.equal(1);
  });

  it('numbers new folds above what MongoDB applied when Redis lost the sequence, so none is dropped', async () => {
    const folder = new CountFolder({ journal: new CountJournal(redis, infra.redisPrefix), totals, clock, logger, tickMs: 0, ...COUNT_FOLDING });
    await folder.foldNow(true);
    expect(await figures('p:6')).to.deep.include({ adRequests: 60, confirmedDeliveries: 1 });
    // Redis restarted without persistence: its keys are gone, MongoDB keeps its totals.
    await redis.del(...(await redis.keys(`${infra.redisPrefix}*`)));
    clock.advance(60_000);
    await recorder.countAdRequest(6, limit, allocation('b-1'), clock.now());
    await folder.foldNow(true);
    await folder.stop();
    expect((await figures('p:6')).adRequests).to.equal(61);
    expect((await totals.read(['p:6'])).get('p:6')?.days['2026-04-01']?.adRequests).to.equal(61);
  });
});
