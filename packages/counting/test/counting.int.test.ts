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

  it('counts an unfilled ad request (204) once, in its publisher\'s grains only, in the same step as the limit', async () => {
    const unfilled = { unfilled: true as const, requestId: 'u-1', publisherId: 8, publisherOwnerAccountId: '4008', requestedAt: clock.now() };
    expect(await recorder.countAdRequest(8, limit, unfilled, clock.now())).to.include({ counted: true, allowed: true, consumed: 1 });
    expect(await recorder.countAdRequest(8, limit, unfilled, clock.now()), 'the same call resent').to.include({ counted: true, consumed: 1 });
    for (const grain of ['all', 'p:8', 'po:4008']) expect((await figures(grain)).unfilledAdRequests, grain).to.be.at.least(1);
    expect((await figures('p:8')).unfilledAdRequests).to.equal(1);
    expect((await figures('p:8')).adRequests, 'a 204 is not an ad request of the totals').to.equal(undefined);
    expect(await figures('co:4008')).to.deep.equal({});
  });

  it('keeps the test keys\' window of an account apart from the live keys\', counting nothing in it', async () => {
    for (let i = 1; i <= 60; i += 1) expect((await recorder.consumeTestAdRequest('4009', limit, clock.now())).allowed).to.equal(true);
    expect(await recorder.consumeTestAdRequest('4009', limit, clock.now())).to.include({ allowed: false, consumed: 61, counted: false });
    expect(await recorder.countAdRequest(9, limit, null, clock.now()), 'the live window').to.include({ allowed: true, consumed: 1 });
    expect(await recorder.consumeTestAdRequest('4010', limit, clock.now()), 'another account').to.include({ allowed: true, consumed: 1 });
    expect(await figures('p:9')).to.deep.equal({});
  });

  it('counts a first confirmation once per allocation', async () => {
    expect(await recorder.countOnce('confirmedDeliveries', 'a-1', allocation('a-1'), clock.now())).to.equal(true);
    expect(await recorder.countOnce('confirmedDeliveries', 'a-1', allocation('a-1'), clock.now())).to.equal(false);
    expect((await figures('cp:5:6')).confirmedDeliveries).to.equal(1);
  });

  it('answers a resent first confirmation as the first (ioredis resends a script whose answer was lost) and counts it once', async () => {
    const call = () => recorder.countOnce('confirmedDeliveries', 'a-2', allocation('a-2'), clock.now(), 'attempt-of-a-2');
    expect(await call(), 'the call').to.equal(true);
    expect(await call(), 'the same call resent').to.equal(true);
    expect(await recorder.countOnce('confirmedDeliveries', 'a-2', allocation('a-2'), clock.now()), 'another confirmation').to.equal(false);
    expect((await figures('cp:5:6')).confirmedDeliveries).to.equal(2); // a-1 above, a-2 once
  });

  it('numbers new folds above what MongoDB applied when Redis lost the sequence, so none is dropped', async () => {
    const folder = new CountFolder({ journal: new CountJournal(redis, infra.redisPrefix), totals, clock, logger, tickMs: 0, ...COUNT_FOLDING });
    await folder.foldNow(true);
    expect(await figures('p:6')).to.deep.include({ adRequests: 60, confirmedDeliveries: 2 });
    // Redis restarted without persistence: its keys are gone, MongoDB keeps its totals.
    await redis.del(...(await redis.keys(`${infra.redisPrefix}*`)));
    clock.advance(60_000);
    await recorder.countAdRequest(6, limit, allocation('b-1'), clock.now());
    await folder.foldNow(true);
    await folder.stop();
    expect((await figures('p:6')).adRequests).to.equal(61);
    expect((await totals.read(['p:6'])).get('p:6')?.days['2026-04-01']?.adRequests).to.equal(61);
  });

  describe('applying folds to the totals', () => {
    const fold = (seq: number, grains: Record<string, Record<string, number>>) => ({
      seq,
      counts: new Map(Object.entries(grains).map(([grain, fields]) => [grain, new Map(Object.entries(fields))])),
    });
    const folds = [
      fold(101, { 'c:90': { '2026-04-02|adRequests': 3 }, 'c:91': { '2026-04-02|adRequests': 1 } }),
      fold(102, { 'c:90': { '2026-04-02|adRequests': 2, '2026-04-03|clickedLinks': 1 } }),
      fold(103, { 'c:91': { '2026-04-03|confirmedDeliveries': 4 }, 'c:92': { '2026-04-03|adRequests': 7 } }),
    ];
    const owners = new Map([
      ['c:90', '900'],
      ['c:91', '910'],
    ]);
    const expected = {
      'c:90': { '2026-04-02': { adRequests: 5 }, '2026-04-03': { clickedLinks: 1 } },
      'c:91': { '2026-04-02': { adRequests: 1 }, '2026-04-03': { confirmedDeliveries: 4 } },
      'c:92': { '2026-04-03': { adRequests: 7 } },
    };
    const stored = async () => {
      const documents = await totals.read(Object.keys(expected));
      return Object.fromEntries([...documents].map(([grain, document]) => [grain, document.days]));
    };

    it('adds a batch of folds with one write per grain and every grain at the batch\'s highest fold', async () => {
      await totals.applyFolds(folds, owners);
      expect(await stored()).to.deep.equal(expected);
      const documents = await totals.read(['c:90', 'c:92']);
      expect(documents.get('c:90')).to.include({ lastFold: 103, campaignOwnerAccountId: '900' });
      expect(documents.get('c:92')?.lastFold).to.equal(103);
    });

    it('adds to each grain only the folds it lacks when batches are cut differently after a crash', async () => {
      // Already applied above; applied again, alone and in other batches, nothing changes.
      await totals.applyFolds([folds[0]!], owners);
      await totals.applyFolds(folds.slice(1), owners);
      await totals.apply(102, folds[1]!.counts, owners);
      expect(await stored()).to.deep.equal(expected);
      // A folder that died after writing c:90 of a batch 104-105; the next one applies 104 to 106.
      const later = [fold(104, { 'c:90': { '2026-04-03|adRequests': 1 }, 'c:91': { '2026-04-03|adRequests': 1 } }), fold(105, { 'c:91': { '2026-04-03|adRequests': 1 } })];
      await totals.applyFolds([later[0]!, later[1]!].map((f) => ({ seq: f.seq, counts: new Map([...f.counts].filter(([grain]) => grain === 'c:90')) })), owners);
      await totals.applyFolds([...later, fold(106, { 'c:90': { '2026-04-03|adRequests': 10 } })], owners);
      const days = await stored();
      expect(days['c:90']?.['2026-04-03']).to.deep.equal({ clickedLinks: 1, adRequests: 11 });
      expect(days['c:91']?.['2026-04-03']).to.deep.equal({ confirmedDeliveries: 4, adRequests: 2 });
    });

    it('reads and adds to a grain document of the earlier layout (days as an object)', async () => {
      const old = { _id: 'c:93', lastFold: 50, days: { '2026-04-01': { adRequests: 2 } } };
      // Where the store keeps c:93: the shard that holds it after one write through the store.
      await totals.applyFolds([fold(200, { 'c:93': { '2026-04-01|clickedLinks': 1 } })], owners);
      const shardNames = (await mongo.db!.listCollections().toArray()).map((collection) => collection.name).filter((name) => name.startsWith('totals_'));
      const holders = await Promise.all(shardNames.map(async (name) => ((await mongo.db!.collection(name).findOne({ _id: 'c:93' as never })) ? name : null)));
      const shard = holders.find((name): name is string => name !== null)!;
      await mongo.db!.collection(shard).replaceOne({ _id: 'c:93' as never }, old);
      expect((await totals.read(['c:93'])).get('c:93')?.days).to.deep.equal(old.days);
      await totals.applyFolds([fold(201, { 'c:93': { '2026-04-01|adRequests': 1, '2026-04-02|adRequests': 4 } })], owners);
      expect((await totals.read(['c:93'])).get('c:93')).to.deep.include({ lastFold: 201, days: { '2026-04-01': { adRequests: 3 }, '2026-04-02': { adRequests: 4 } } });
      expect(typeof (await mongo.db!.collection(shard).findOne({ _id: 'c:93' as never }))?.days, 'stored as a string again').to.equal('string');
    });
  });
});
