import { createLogger, createRedis, waitForRedis, type Redis } from '@pilot/platform';
import { connectMongo, mongoose, RetentionSweeper, type Connection } from '@pilot/storage';
import { ManualClock, testInfra } from '@pilot/testkit';
import { expect } from 'chai';
import { CountJournal, CountRecorder, DEFAULT_INTERVAL_MS, grainDaysOf, intervalEndOf, UnfoldedCounts, type DayRange, type GrainDays } from '../src';
import { COUNT_FOLDING, CountFolder, TotalsStore, type DayDocument } from '../src/totals';
import { foldCounts } from './fold-counts';

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

  /** The grain's days as a stats read sees them: MongoDB's documents plus what Redis has not folded. */
  async function daysOf(grain: string, range: DayRange = {}): Promise<GrainDays> {
    const stored = (await totals.readRange([grain], range)).get(grain);
    const { parts } = await unfolded.read([grain]);
    return grainDaysOf(stored, parts);
  }

  async function figures(grain: string): Promise<Record<string, number>> {
    return (await daysOf(grain))['2026-04-01'] ?? {};
  }

  const folderOf = (options: { clock?: ManualClock; journal?: CountJournal; totals?: TotalsStore } = {}) =>
    new CountFolder({ journal: options.journal ?? new CountJournal(redis, infra.redisPrefix), totals: options.totals ?? totals, clock: options.clock ?? clock, logger, tickMs: 0, ...COUNT_FOLDING });

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
    const folder = folderOf();
    await folder.foldNow(true);
    expect(await figures('p:6')).to.deep.include({ adRequests: 60, confirmedDeliveries: 2 });
    // Redis restarted without persistence: its keys are gone, MongoDB keeps its totals.
    await redis.del(...(await redis.keys(`${infra.redisPrefix}*`)));
    clock.advance(60_000);
    await recorder.countAdRequest(6, limit, allocation('b-1'), clock.now());
    await folder.foldNow(true);
    await folder.stop();
    expect((await figures('p:6')).adRequests).to.equal(61);
    expect((await totals.readRange(['p:6'], {})).get('p:6')?.days['2026-04-01']?.adRequests).to.equal(61);
  });

  it('numbers a fold by its interval, and an interval a late writer reopened above the last fold', async () => {
    const journal = new CountJournal(redis, infra.redisPrefix);
    clock.advance(DEFAULT_INTERVAL_MS);
    const interval = intervalEndOf(clock.now(), DEFAULT_INTERVAL_MS);
    await recorder.countAdRequest(6, limit, allocation('b-2'), clock.now());
    const [open] = await journal.closedIntervals(new Date(8.64e15), 0);
    expect(open).to.equal(interval);
    expect(await journal.claim(interval)).to.equal(interval);
    // A writer whose clock is late counts into the interval claimed already: its fold comes after.
    await recorder.countAdRequest(6, limit, allocation('b-3'), clock.now());
    expect(await journal.claim(interval)).to.equal(interval + 1);
    const folder = folderOf();
    await folder.foldNow(true);
    await folder.stop();
    expect((await totals.readRange(['p:6'], {})).get('p:6')?.days['2026-04-01']?.adRequests).to.equal(63);
  });

  it('cannot land the write of a folder paused past its lease after the next holder wrote', async () => {
    const journal = new CountJournal(redis, infra.redisPrefix);
    const lease = totals.lease(clock);
    const early = await lease.hold('paused-folder', COUNT_FOLDING.leaseMs);
    expect(early).to.be.a('number');
    const before = (await totals.readRange(['all'], {})).get('all')?.days['2026-04-01']?.adRequests ?? 0;
    await recorder.countAdRequest(7, limit, { ...allocation('f-1'), publisherId: 7 }, clock.now());
    for (const interval of await journal.closedIntervals(new Date(8.64e15), 0)) await journal.claim(interval);
    const [first] = await journal.pendingFolds();
    const firstCounts = await foldCounts(redis, journal, first!);
    // The paused folder has read the documents and checked its lease; then it stops past the lease, while
    // the next holder applies that fold and a later one. Only then does its write go out.
    const pausedWrite = totals.applyFolds([{ seq: first!, counts: firstCounts }], new Map(), {
      fence: early!,
      stillHeld: async () => {
        clock.advance(COUNT_FOLDING.leaseMs + 1);
        await recorder.countAdRequest(7, limit, { ...allocation('f-2'), publisherId: 7 }, clock.now());
        const next = folderOf();
        await next.foldNow(true);
        await next.stop();
        return true;
      },
    });
    const refused = await pausedWrite.then(
      () => null,
      (error: unknown) => error as Error,
    );
    expect(refused?.name).to.equal('FoldingInterruptedError');
    const stored = await totals.readRange(['all'], {});
    expect(stored.get('all')?.days['2026-04-01']?.adRequests, 'both folds, once each').to.equal(before + 2);
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
      const documents = await totals.readRange(Object.keys(expected), {});
      return Object.fromEntries([...documents].map(([grain, document]) => [grain, document.days]));
    };

    it('adds a batch of folds with one write per grain and day, each at the highest fold it got', async () => {
      await totals.applyFolds(folds, owners);
      expect(await stored()).to.deep.equal(expected);
      const documents = await totals.readRange(['c:90', 'c:92'], {});
      expect(documents.get('c:90')).to.deep.include({ lastFolds: { '2026-04-02': 102, '2026-04-03': 102 }, campaignOwnerAccountId: '900' });
      expect(documents.get('c:92')?.lastFolds).to.deep.equal({ '2026-04-03': 103 });
    });

    it('adds to each grain only the folds it lacks when batches are cut differently after a crash', async () => {
      // Already applied above; applied again, alone and in other batches, nothing changes.
      await totals.applyFolds([folds[0]!], owners);
      await totals.applyFolds(folds.slice(1), owners);
      await totals.applyFolds([{ seq: 102, counts: folds[1]!.counts }], owners);
      expect(await stored()).to.deep.equal(expected);
      // A folder that died after writing c:90 of a batch 104-105; the next one applies 104 to 106.
      const later = [fold(104, { 'c:90': { '2026-04-03|adRequests': 1 }, 'c:91': { '2026-04-03|adRequests': 1 } }), fold(105, { 'c:91': { '2026-04-03|adRequests': 1 } })];
      await totals.applyFolds([later[0]!, later[1]!].map((f) => ({ seq: f.seq, counts: new Map([...f.counts].filter(([grain]) => grain === 'c:90')) })), owners);
      await totals.applyFolds([...later, fold(106, { 'c:90': { '2026-04-03|adRequests': 10 } })], owners);
      const days = await stored();
      expect(days['c:90']?.['2026-04-03']).to.deep.equal({ clickedLinks: 1, adRequests: 11 });
      expect(days['c:91']?.['2026-04-03']).to.deep.equal({ confirmedDeliveries: 4, adRequests: 2 });
    });

    it('keeps one document per grain and UTC day, with real fields a MongoDB reader can query', async () => {
      await totals.ensureIndexes();
      await totals.applyFolds([fold(300, { 'c:94': { '2026-04-30|adRequests': 2, '2026-05-01|adRequests': 3, '2026-05-01|clickedLinks': 1, '2026-05-01T13|clickedLinks': 1 } })], owners);
      const collection = mongo.db!.collection<DayDocument>('counts_days');
      const { fence } = await totals.currentGuard();
      const key = { level: 'campaign', campaignId: 94 };
      expect(await collection.find({ level: 'campaign', campaignId: 94 }, { projection: { _id: 0 } }).sort({ day: 1 }).toArray()).to.deep.equal([
        { ...key, day: '2026-04-30', adRequests: 2, lastFold: 300, fence },
        { ...key, day: '2026-05-01', adRequests: 3, clickedLinks: 1, hours: { 13: { clickedLinks: 1 } }, lastFold: 300, fence },
      ]);
      // A day read leaves the hours out; an hourly read takes them.
      expect((await totals.readRange(['c:94'], {})).get('c:94')?.days).to.deep.equal({ '2026-04-30': { adRequests: 2 }, '2026-05-01': { adRequests: 3, clickedLinks: 1 } });
      expect((await totals.readRange(['c:94'], { from: '2026-04-30', to: '2026-05-01' }, true)).get('c:94')?.hours).to.deep.equal({ '2026-05-01T13': { clickedLinks: 1 } });
      const indexes = (await collection.indexes()).map((index) => index.key);
      expect(indexes).to.deep.include({ level: 1, campaignId: 1, publisherId: 1, accountId: 1, placementId: 1, day: 1 });
      expect(indexes).to.deep.include({ level: 1, day: 1, campaignId: 1, publisherId: 1, _id: 1 });
      expect(indexes, 'the report\'s day order per owner').to.deep.include.members([
        { level: 1, campaignOwnerAccountId: 1, day: 1, campaignId: 1, publisherId: 1, _id: 1 },
        { level: 1, publisherOwnerAccountId: 1, day: 1, publisherId: 1, campaignId: 1, _id: 1 },
      ]);
      const names = (await mongo.db!.listCollections({}, { nameOnly: true }).toArray()).map(({ name }) => name).sort();
      expect(names).to.deep.equal(['counts_days', 'totals_folder']);
    });

    it('unsets the hours of the days past their retention, by the injected clock, and keeps the days', async () => {
      await totals.applyFolds([fold(330, { 'c:93': { '2026-03-01|adRequests': 2, '2026-03-01T08|adRequests': 2, '2026-03-02|adRequests': 1, '2026-03-02T23|adRequests': 1 } })], owners);
      const rule = totals.hourlyRetentionRule();
      const sweeper = new RetentionSweeper({ rules: [rule], clock, logger, intervalMs: 0 });
      const hoursOf = async () => (await totals.readRange(['c:93'], { from: '2026-03-01', to: '2026-03-02' }, true)).get('c:93')?.hours;
      const at = clock.now();
      try {
        // Kept 35 days after its day: March 1 until April 5 00:00, March 2 until April 6 00:00.
        clock.set('2026-04-05T00:00:00Z');
        expect((await sweeper.sweep())[rule.name]).to.equal(0);
        clock.set('2026-04-05T00:00:00.001Z');
        expect((await sweeper.sweep())[rule.name]).to.be.at.least(1);
        expect(await hoursOf()).to.deep.equal({ '2026-03-02T23': { adRequests: 1 } });
        clock.set('2026-04-06T12:00:00Z');
        await sweeper.sweep();
        expect(await hoursOf()).to.deep.equal({});
        expect(await mongo.db!.collection('counts_days').countDocuments({ campaignId: 93, hours: { $exists: true } })).to.equal(0);
        expect((await totals.readRange(['c:93'], {})).get('c:93')?.days).to.deep.equal({ '2026-03-01': { adRequests: 2 }, '2026-03-02': { adRequests: 1 } });
      } finally {
        clock.set(at.toISOString());
      }
    });

    it('changes nothing when a fold is applied twice: every document holds it already (its lastFold)', async () => {
      const twice = fold(310, { 'c:96': { '2026-04-04|adRequests': 5, '2026-04-04T09|adRequests': 5 }, 'p:96': { '2026-04-04|adRequests': 5 } });
      await totals.applyFolds([twice], owners);
      const collection = mongo.db!.collection<DayDocument>('counts_days');
      const first = await collection.find({ day: '2026-04-04' }).sort({ _id: 1 }).toArray();
      await totals.applyFolds([twice], owners);
      await totals.applyFolds([twice, fold(311, { 'c:96': { '2026-04-04|adRequests': 1 } })], owners);
      const after = await collection.find({ day: '2026-04-04' }).sort({ _id: 1 }).toArray();
      expect(after.find((document) => document.level === 'publisher')).to.deep.equal(first.find((document) => document.level === 'publisher'));
      expect(after.find((document) => document.level === 'campaign')).to.deep.include({ adRequests: 6, lastFold: 311 });
      const hours = await totals.readRange(['c:96'], { from: '2026-04-04', to: '2026-04-04' }, true);
      expect(hours.get('c:96')?.hours).to.deep.equal({ '2026-04-04T09': { adRequests: 5 } });
    });

    it('counts a fold once when the same fold lands between its read and its write (the insert collides on _id)', async () => {
      const raced = fold(315, { 'c:98': { '2026-04-05|adRequests': 4, '2026-04-05T10|adRequests': 4 } });
      const { fence } = await totals.currentGuard();
      let races = 0;
      await totals.applyFolds([raced], owners, {
        fence,
        stillHeld: async () => {
          if (races++ === 0) await new TotalsStore(mongo, 5000).applyFolds([raced], owners, { fence, stillHeld: () => Promise.resolve(true) });
          return true;
        },
      });
      expect(races, 'written again after the collision').to.be.at.least(2);
      expect((await totals.readRange(['c:98'], {})).get('c:98')?.days['2026-04-05']).to.deep.equal({ adRequests: 4 });
      expect((await totals.readRange(['c:98'], { from: '2026-04-05', to: '2026-04-05' }, true)).get('c:98')?.hours).to.deep.equal({ '2026-04-05T10': { adRequests: 4 } });
    });

    it('refuses the write of a folder whose lease a later holder took, and stops its pass', async () => {
      const counts = fold(320, { 'c:97': { '2026-04-05|adRequests': 2 } });
      const { fence } = await totals.currentGuard();
      await totals.applyFolds([counts], owners, { fence: fence + 1, stillHeld: () => Promise.resolve(true) });
      const stale = await totals.applyFolds([fold(321, { 'c:97': { '2026-04-05|adRequests': 3 } })], owners, { fence, stillHeld: () => Promise.resolve(true) }).then(
        () => null,
        (error: unknown) => error as Error,
      );
      expect(stale?.name).to.equal('FoldingInterruptedError');
      expect((await totals.readRange(['c:97'], {})).get('c:97')?.days['2026-04-05']).to.deep.equal({ adRequests: 2 });
    });
  });

  describe('months', () => {
    const fold = (seq: number, grain: string, fields: Record<string, number>) => ({ seq, counts: new Map([[grain, new Map(Object.entries(fields))]]) });

    it('answers a range across a month boundary from the days\' documents and Redis, exactly', async () => {
      const journal = new CountJournal(redis, infra.redisPrefix);
      const grain = 'c:95';
      // Folded: the last two days of May and the first of June; counted in Redis, not folded: June 2.
      await totals.applyFolds([fold(400, grain, { '2026-05-30|adRequests': 1, '2026-05-31|adRequests': 2, '2026-06-01|adRequests': 4 })], new Map());
      const at = new Date('2026-06-02T09:00:00Z');
      await recorder.count([grain], '2026-06-02', 'adRequests', at);
      const days = (await totals.readRange([grain], { from: '2026-05-31', to: '2026-06-02' })).get(grain);
      expect(days?.lastFolds).to.deep.equal({ '2026-05-31': 400, '2026-06-01': 400 });
      const { parts } = await unfolded.read([grain]);
      const seen = grainDaysOf(days, parts);
      expect(seen).to.deep.include({ '2026-05-31': { adRequests: 2 }, '2026-06-01': { adRequests: 4 }, '2026-06-02': { adRequests: 1 } });
      // The fold of June 2, applied once; applied again it adds nothing.
      for (const interval of await journal.closedIntervals(new Date(8.64e15), 0)) await journal.claim(interval);
      const [seq] = await journal.pendingFolds();
      const counts = await foldCounts(redis, journal, seq!);
      await totals.applyFolds([{ seq: seq!, counts }], new Map());
      await totals.applyFolds([{ seq: seq!, counts }], new Map());
      const after = grainDaysOf((await totals.readRange([grain], {})).get(grain), (await unfolded.read([grain])).parts);
      expect(after['2026-06-02']).to.deep.equal({ adRequests: 1 });
      expect(after['2026-05-30']).to.deep.equal({ adRequests: 1 });
    });
  });

  describe('the cost of a stats read', () => {
    const prefix = () => `${infra.redisPrefix}cost:`;
    let connection: Connection;
    const finds: string[] = [];
    const findCommands: Array<Record<string, unknown>> = [];

    before(async () => {
      // A connection of its own that reports every command it sends, to count the lookups.
      connection = mongoose.createConnection(infra.mongoUrl, { dbName: `counting_cost_${infra.runId}`, monitorCommands: true, autoIndex: false, autoCreate: false });
      await connection.asPromise();
      connection.getClient().on('commandStarted', (event: { commandName: string; command: Record<string, unknown> }) => {
        if (event.commandName === 'find') finds.push(String(event.command.find));
        if (event.commandName === 'find') findCommands.push(event.command);
      });
    });

    after(async () => {
      await connection.db!.dropDatabase();
      await connection.close();
    });

    it('is one indexed query per grain, whose documents grow with the days counted, not the events', async () => {
      const store = new TotalsStore(connection, 5000);
      await store.ensureIndexes();
      const seeding = new ManualClock(new Date('2026-01-01T00:00:00Z').getTime());
      const writer = new CountRecorder(redis, prefix(), 2000);
      const folder = folderOf({ clock: seeding, journal: new CountJournal(redis, prefix()), totals: store });
      // Three months of counting through the recorder, every 45 minutes of the clock, folded as it goes.
      const facts = 2_800;
      for (let i = 0; i < facts; i += 1) {
        const counted = { campaignId: 700 + (i % 10), publisherId: 800 + (i % 5), campaignOwnerAccountId: '7000', publisherOwnerAccountId: '8000', allocatedAt: seeding.now() };
        await writer.countAdRequest(counted.publisherId, { points: 1e9, windowSeconds: 60 }, { ...counted, allocationId: `cost-${i}` }, seeding.now());
        if (i % 3 === 0) await writer.countOnce('confirmedDeliveries', `cost-${i}`, counted, seeding.now());
        seeding.advance(45 * 60_000);
        if (i % 500 === 499) await folder.foldNow(true);
      }
      await folder.foldNow(true);
      await folder.stop();
      const grains = ['co:7000', 'po:8000'];
      const read = async (range: DayRange) => {
        finds.length = 0;
        const stored = await store.readRange(grains, range);
        const queries = finds.filter((collection) => collection === 'counts_days').length;
        const days = [...stored.values()].flatMap((grain) => Object.values(grain.days));
        const adRequests = days.reduce((sum, day) => sum + (day.adRequests ?? 0), 0);
        return { queries, others: finds.length - queries, documents: days.length, adRequests };
      };
      // The folder applied the first 64 folds of each pass: the first twelve days of January.
      const week = { from: '2026-01-02', to: '2026-01-08' };
      const before = { allTime: await read({}), week: await read(week) };
      expect(before.allTime).to.include({ queries: 2, others: 0 });
      expect(before.week).to.include({ queries: 2, others: 0, documents: 14 });

      // Two million more events, applied as the folder applies them.
      const million = (seq: number, day: string) => ({ seq, counts: new Map(grains.map((grain) => [grain, new Map([[`${day}|adRequests`, 500_000]])])) });
      // Numbered above every fold the folder applied: later intervals.
      const appliedThrough = intervalEndOf(seeding.now(), DEFAULT_INTERVAL_MS);
      await store.applyFolds([million(appliedThrough + 1, '2026-01-15'), million(appliedThrough + 2, '2026-02-15')], new Map());
      await store.applyFolds([million(appliedThrough + 3, '2026-01-05'), million(appliedThrough + 4, '2026-03-10')], new Map());
      const after = { allTime: await read({}), week: await read(week) };
      expect(after.allTime.adRequests - before.allTime.adRequests).to.equal(4_000_000);
      expect(after.week.adRequests - before.week.adRequests).to.equal(1_000_000);
      // Three days more for each grain (January 15, February 15, March 10), whatever the events.
      expect(after.allTime).to.include({ queries: 2, documents: before.allTime.documents + 6 });
      expect(after.week).to.include({ queries: 2, documents: 14 });
      // A range reaching far beyond what was counted reads only the days counted.
      expect(await read({ from: '2000-01-01', to: '2099-12-31' })).to.include({ queries: 2, documents: after.allTime.documents });
    });

    it('reads the network\'s pairs and campaigns of a month in four parts of its days side by side, an account\'s a query a filter, a few items\' days summed by the store', async () => {
      const store = new TotalsStore(connection, 5000);
      await store.ensureIndexes();
      // Two campaigns on one platform, every day of March 2026 and the days just outside it.
      const days = Array.from({ length: 33 }, (_, index) => new Date(Date.UTC(2026, 1, 28 + index)).toISOString().slice(0, 10));
      const grains = ['cp:601:611', 'cp:602:611', 'c:601', 'c:602'];
      const fields = new Map(days.map((day, index) => [`${day}|adRequests`, index + 1]));
      await store.applyFolds([{ seq: 1, counts: new Map(grains.map((grain) => [grain, fields])) }], new Map([['c:601', '6010'], ['c:602', '6010'], ['p:611', '6110']]));
      const month = { from: '2026-03-01', to: '2026-03-31' };
      const inMonth = days.filter((day) => day >= month.from && day <= month.to);
      const readWith = async <T extends { day: string; counts: Record<string, number> }>(read: () => Promise<T[]>) => {
        finds.length = 0;
        const documents = await read();
        return { queries: finds.length, days: documents.map(({ day }) => day).sort(), adRequests: documents.reduce((sum, { counts }) => sum + (counts.adRequests ?? 0), 0) };
      };
      const expected = { days: [...inMonth, ...inMonth].sort(), adRequests: 2 * inMonth.reduce((sum, day) => sum + days.indexOf(day) + 1, 0) };
      expect(await readWith(() => store.readPairs(month))).to.deep.equal({ queries: 4, ...expected });
      expect(await readWith(() => store.readScope('campaign', 'network', month))).to.deep.equal({ queries: 4, ...expected });
      // An account's documents (two filters), a platform's scope, or under two weeks: a query a filter.
      expect(await readWith(() => store.readPairs({ ...month, visibleTo: '6110' }))).to.deep.equal({ queries: 2, ...expected });
      expect(await readWith(() => store.readScope('campaign', 'p:611', month))).to.deep.equal({ queries: 1, ...expected });
      // A few items: their days summed by the store (no find), those from the first day Redis counts on found.
      const ofOne = { adRequests: expected.adRequests / 2 };
      expect(await readWith(() => store.readScope('campaign', 'network', month, [601]))).to.deep.equal({ queries: 0, days: [''], ...ofOne });
      expect(await readWith(() => store.readScope('campaign', 'network', month, [601], '2026-03-30'))).to.deep.equal({ queries: 1, days: ['', '2026-03-30', '2026-03-31'], ...ofOne });
      expect(await readWith(() => store.readScope('campaign', 'network', month, [601], '2026-02-20'))).to.deep.equal({ queries: 1, days: inMonth, ...ofOne });
      // A sum carries its item and the owner a breakdown keeps scopes by.
      expect((await store.readScope('campaign', 'network', month, [601]))[0]).to.deep.include({ campaignId: 601, publisherId: null, campaignOwnerAccountId: '6010' });
      expect(await readWith(() => store.readPairs({ from: '2026-03-01', to: '2026-03-13' }))).to.include({ queries: 1 });
    });

    it('reads a page of the report\'s pairs in day order from an index, the first documents after the cursor, an owner\'s other side whole', async () => {
      const store = new TotalsStore(connection, 5000);
      await store.ensureIndexes();
      // Campaigns 701 and 702 of 7010, 703 of 7020, each on platforms 711 and 712 of 7110, five days.
      const days = ['2026-04-01', '2026-04-02', '2026-04-03', '2026-04-04', '2026-04-05'];
      const grains = [701, 702, 703].flatMap((campaign) => [711, 712].map((platform) => `cp:${campaign}:${platform}`));
      const fields = new Map(days.map((day) => [`${day}|adRequests`, 1]));
      const owners = new Map([['c:701', '7010'], ['c:702', '7010'], ['c:703', '7020'], ['p:711', '7110'], ['p:712', '7110']]);
      await store.applyFolds([{ seq: 1, counts: new Map(grains.map((grain) => [grain, fields])) }], owners);
      const range = { from: '2026-04-02', to: '2026-04-04' };
      const campaignFirst = ['campaignId', 'publisherId'] as const;
      const keys = (documents: Array<{ day: string; campaignId: number | null; publisherId: number | null }>) => documents.map(({ day, campaignId, publisherId }) => `${day} ${campaignId}:${publisherId}`);
      const page = async (query: Parameters<TotalsStore['readPairPage']>[0], order: Parameters<TotalsStore['readPairPage']>[1]['order'], after: Parameters<TotalsStore['readPairPage']>[1]['after'], limit: number) => {
        findCommands.length = 0;
        const read = keys(await store.readPairPage(query, { order, after, limit }));
        const plans = await Promise.all(findCommands.filter((command) => command.limit !== undefined).map(({ find, filter, sort, limit: cut }) => connection.db!.command({ explain: { find, filter, sort, limit: cut } })));
        return { read, sortedByTheStore: plans.map((plan) => plan.sortPushdown as boolean) };
      };

      expect(await page(range, campaignFirst, null, 4)).to.deep.equal({
        read: ['2026-04-02 701:711', '2026-04-02 701:712', '2026-04-02 702:711', '2026-04-02 702:712'],
        sortedByTheStore: [true],
      });
      expect((await page(range, campaignFirst, { day: '2026-04-02', campaignId: 702, publisherId: 712 }, 4)).read).to.deep.equal([
        '2026-04-02 703:711', '2026-04-02 703:712', '2026-04-03 701:711', '2026-04-03 701:712',
      ]);
      expect((await page(range, campaignFirst, { day: '2026-04-04', campaignId: 703, publisherId: 711 }, 4)).read, 'the last of the range').to.deep.equal(['2026-04-04 703:712']);
      // An advertiser's campaigns a page (it owns no platform); a publisher owner's platforms first a page (it owns no campaign).
      expect(await page({ ...range, visibleTo: '7010' }, campaignFirst, null, 3)).to.deep.equal({
        read: ['2026-04-02 701:711', '2026-04-02 701:712', '2026-04-02 702:711'],
        sortedByTheStore: [true],
      });
      expect(await page({ ...range, visibleTo: '7110' }, ['publisherId', 'campaignId'], { day: '2026-04-03', campaignId: 703, publisherId: 711 }, 3)).to.deep.equal({
        read: ['2026-04-03 701:712', '2026-04-03 702:712', '2026-04-03 703:712'],
        sortedByTheStore: [true],
      });
      // The indexes these replace, left by an earlier release, are dropped at start, by two replicas at once too.
      await connection.db!.collection('counts_days').createIndexes([{ key: { level: 1, day: 1 } }, { key: { level: 1, campaignOwnerAccountId: 1, day: 1 } }]);
      await Promise.all([store.ensureIndexes(), new TotalsStore(connection, 5000).ensureIndexes()]);
      const names = (await connection.db!.collection('counts_days').indexes()).map(({ name }) => name);
      expect(names).to.not.include.members(['level_1_day_1']).and.not.include('level_1_campaignOwnerAccountId_1_day_1');
      expect(names).to.include('level_1_day_1_campaignId_1_publisherId_1__id_1');
      // The other side of an account is read whole from the cursor on (7110's campaigns-first side: its platforms' every pair), for the caller to merge.
      expect((await page({ ...range, visibleTo: '7110' }, campaignFirst, { day: '2026-04-04', campaignId: 702, publisherId: 711 }, 2)).read).to.deep.equal([
        '2026-04-04 702:712', '2026-04-04 703:711', '2026-04-04 703:712',
      ]);
    });

    it('reads a page of a breakdown\'s documents in day order from an index, the other id null, from after the cursor', async () => {
      const store = new TotalsStore(connection, 5000);
      await store.ensureIndexes();
      // Campaigns 801 and 802 of 8010, platforms 811 and 812 of 8110 and 813 of 8120, three days.
      const days = ['2026-05-01', '2026-05-02', '2026-05-03'];
      const fields = new Map(days.map((day) => [`${day}|adRequests`, 1]));
      const grains = ['c:801', 'c:802', 'p:811', 'p:812', 'p:813'];
      const owners = new Map([['c:801', '8010'], ['c:802', '8010'], ['p:811', '8110'], ['p:812', '8110'], ['p:813', '8120']]);
      await store.applyFolds([{ seq: 1, counts: new Map(grains.map((grain) => [grain, fields])) }], owners);
      const range = { from: '2026-05-01', to: '2026-05-03' };
      const keys = (documents: Array<{ day: string; campaignId: number | null; publisherId: number | null }>) => documents.map(({ day, campaignId, publisherId }) => `${day} ${campaignId}:${publisherId}`);
      const page = async (dimension: 'campaign' | 'publisher', scopes: string[], order: Parameters<TotalsStore['readScopePage']>[3]['order'], after: Parameters<TotalsStore['readScopePage']>[3]['after'], limit: number) => {
        findCommands.length = 0;
        const read = keys(await store.readScopePage(dimension, scopes, range, { order, after, limit }));
        const paged = findCommands.filter((command) => command.limit !== undefined);
        const plans = await Promise.all(paged.map(({ find, filter, sort, limit: cut }) => connection.db!.command({ explain: { find, filter, sort, limit: cut } })));
        return { read, sortedByTheStore: plans.map((plan) => plan.sortPushdown as boolean), readWhole: findCommands.length - paged.length };
      };
      const campaignFirst = ['campaignId', 'publisherId'] as const;

      // The network's platforms: campaign first in the index, every campaignId null.
      expect(await page('publisher', ['all'], campaignFirst, { day: '2026-05-01', campaignId: null, publisherId: 812 }, 3)).to.deep.equal({
        read: ['2026-05-01 null:813', '2026-05-02 null:811', '2026-05-02 null:812'],
        sortedByTheStore: [true],
        readWhole: 0,
      });
      expect((await page('publisher', ['all'], campaignFirst, { day: '2026-05-03', campaignId: null, publisherId: 812 }, 3)).read, 'the last of the range').to.deep.equal(['2026-05-03 null:813']);
      // An advertiser's campaigns, and a publisher owner's platforms first; the split documents of an account's other side read whole.
      expect(await page('campaign', ['co:8010', 'po:8010'], campaignFirst, { day: '2026-05-01', campaignId: 802, publisherId: null }, 2)).to.deep.equal({
        read: ['2026-05-02 801:null', '2026-05-02 802:null'],
        sortedByTheStore: [true],
        readWhole: 1,
      });
      expect(await page('publisher', ['po:8110', 'co:8110'], ['publisherId', 'campaignId'], null, 3)).to.deep.equal({
        read: ['2026-05-01 null:811', '2026-05-01 null:812', '2026-05-02 null:811'],
        sortedByTheStore: [true],
        readWhole: 1,
      });
    });
  });
});
