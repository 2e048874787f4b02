import { CountJournal, CountRecorder, UnfoldedCounts } from '@pilot/counting';
import { BreakdownStore, COUNT_FOLDING, CountFolder, TotalsStore, coveredBy } from '@pilot/counting/totals';
import { createLogger, createRedis, waitForRedis, type Redis } from '@pilot/platform';
import { connectMongo, type Connection } from '@pilot/storage';
import { ManualClock, testInfra } from '@pilot/testkit';
import { expect } from 'chai';
import { parseBreakdownQuery, planBreakdown } from '../src/domain/breakdown';
import { readBreakdown, type BreakdownAnswer } from '../src/use-cases/read-breakdown';

/**
 * The breakdown documents a tracking process keeps decoded, against the real
 * FerretDB and Redis: every answer is compared with the same read by a store that keeps nothing.
 */
describe('tracking: breakdown documents kept decoded', () => {
  const infra = testInfra();
  const logger = createLogger({ service: 'breakdown-cache-test', level: 'silent' });
  const clock = new ManualClock(new Date('2026-04-03T12:00:00Z').getTime());
  const owners: Record<number, string> = { 51: '8101', 52: '8101', 53: '8103', 61: '8102', 62: '8104' };
  const viewers = [undefined, '8101', '8102'];
  const queries = [
    'by=campaign',
    'by=publisher',
    'by=campaign&from=2026-03-05&to=2026-04-02',
    'by=campaign&from=2026-03-10&to=2026-03-20',
    'by=publisher&from=2026-03-15&to=2026-04-03&sort=clickedLinks',
  ];
  let redis: Redis;
  let mongo: Connection;
  let recorder: CountRecorder;
  let unfolded: UnfoldedCounts;
  let totals: TotalsStore;
  /** The store of the process that holds the folder lease: its writes refresh what it keeps. */
  let folding: BreakdownStore;
  /** Another replica's: it learns of a fold from the marks and Redis only. */
  let reader: BreakdownStore;
  let plain: BreakdownStore;
  let folder: CountFolder;
  let allocations = 0;

  before(async () => {
    redis = createRedis(infra.redisUrl, 'breakdown-cache-test');
    await waitForRedis(redis);
    mongo = await connectMongo({ url: infra.mongoUrl, dbName: `breakdown_cache_${infra.runId}` });
    recorder = new CountRecorder(redis, infra.redisPrefix, 5000);
    unfolded = new UnfoldedCounts(redis, infra.redisPrefix, 5000);
    totals = new TotalsStore(mongo, 5000);
    folding = new BreakdownStore(mongo, 5000, { clock });
    reader = new BreakdownStore(mongo, 5000, { clock, refreshAfterMs: 10_000 });
    plain = new BreakdownStore(mongo, 5000, { cacheBytes: 0 });
    await totals.ensureIndexes();
    await folding.ensureIndexes();
    folder = new CountFolder({ journal: new CountJournal(redis, infra.redisPrefix), totals, breakdowns: folding, clock, logger, tickMs: 0, ...COUNT_FOLDING, graceMs: 0 });
    await count(51, 61, '2026-03-04', 3);
    await count(52, 61, '2026-03-12', 2);
    await count(53, 62, '2026-03-18', 4);
    await count(51, 62, '2026-04-01', 1);
    await count(52, 62, '2026-04-03', 2);
    await folder.foldNow(true);
  });

  after(async () => {
    await folder?.stop();
    await mongo?.db?.dropDatabase();
    await mongo?.close();
    const keys = await redis.keys(`${infra.redisPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis?.disconnect();
  });

  /** `times` ad requests of campaign c on platform p allocated on `day`, one of them confirmed and clicked, counted now. */
  async function count(c: number, p: number, day: string, times: number): Promise<void> {
    for (let i = 0; i < times; i += 1) {
      allocations += 1;
      const allocation = { campaignId: c, publisherId: p, campaignOwnerAccountId: owners[c]!, publisherOwnerAccountId: owners[p]!, allocatedAt: new Date(`${day}T10:00:00Z`) };
      const allocationId = `cache-${allocations}`;
      await recorder.countAdRequest(p, { points: 1e9, windowSeconds: 60 }, { ...allocation, allocationId }, clock.now());
      if (i === 0) await recorder.countOnce('confirmedDeliveries', allocationId, allocation, clock.now());
      if (i === 0) await recorder.countOnce('clickedLinks', allocationId, allocation, clock.now());
    }
  }

  function queryOf(raw: string) {
    const parsed = parseBreakdownQuery(Object.fromEntries(new URLSearchParams(raw)));
    if (!parsed.ok) throw new Error(parsed.code);
    return parsed.query;
  }

  async function answer(store: BreakdownStore, raw: string, visibleTo: string | undefined): Promise<BreakdownAnswer> {
    return readBreakdown({ totals, breakdowns: store, unfolded, clock }, queryOf(raw), visibleTo);
  }

  /** Every query for every viewer answers as a store that keeps nothing answers; the answers, to check they are not empty. */
  async function expectExact(store: BreakdownStore): Promise<BreakdownAnswer[]> {
    const answers: BreakdownAnswer[] = [];
    for (const raw of queries) {
      for (const visibleTo of viewers) {
        const kept = await answer(store, raw, visibleTo);
        expect(kept, `${raw} for ${visibleTo ?? 'an administrator'}`).to.deep.equal(await answer(plain, raw, visibleTo));
        answers.push(kept);
      }
    }
    expect(answers.some((one) => one.items.length > 0)).to.equal(true);
    return answers;
  }

  /** What the store reads for the administrator's campaign breakdown, and whether Redis covers what its kept sides rely on. */
  async function storedOf(store: BreakdownStore, raw = 'by=campaign') {
    const query = queryOf(raw);
    const plan = planBreakdown(query.by, query.filter);
    const stored = await store.read(query.by, plan.candidates, query.filter, await totals.firstMonth(), clock.now());
    const { keptFolds } = await unfolded.read([]);
    return { all: stored.get('all')!, covered: coveredBy(stored, keptFolds) };
  }

  async function foldAndSweep(): Promise<void> {
    await folder.foldNow(true);
    clock.advance(COUNT_FOLDING.keepAppliedMs + 1000);
    await folder.foldNow(true);
  }

  it('answers from what it keeps once read, exactly, both for the folder\'s process and another replica', async () => {
    await expectExact(reader);
    await expectExact(folding);
    const { all, covered } = await storedOf(reader);
    expect(all.documentsKept).to.equal(all.documentsRead);
    expect(all.reliesOnFoldsAbove).to.equal(null);
    expect(covered).to.equal(true);
  });

  it('adds a fold applied between two reads once: the replica relies on Redis\' kept folds, the folder\'s process keeps what it wrote', async () => {
    await count(51, 61, '2026-04-03', 2);
    await count(53, 61, '2026-04-02', 1);
    await expectExact(reader);
    await folder.foldNow(true);
    await count(52, 62, '2026-04-03', 1); // still in Redis, in an open interval
    const before = await storedOf(reader);
    expect(before.all.documentsKept, 'the current month from the kept document').to.be.greaterThan(0);
    expect(before.all.reliesOnFoldsAbove, 'the kept month document is older than its mark').to.not.equal(null);
    expect(before.covered).to.equal(true);
    await expectExact(reader);
    const ownProcess = await storedOf(folding);
    expect(ownProcess.all.documentsKept).to.equal(ownProcess.all.documentsRead);
    expect(ownProcess.all.reliesOnFoldsAbove, 'the folder kept the documents it wrote').to.equal(null);
    await expectExact(folding);
  });

  it('counts a late fact that rewrites a past month once, before and after its fold, and after Redis lets the fold go', async () => {
    await folder.foldNow(true);
    await expectExact(reader);
    await count(53, 62, '2026-03-11', 3);
    await expectExact(reader);
    await folder.foldNow(true);
    const late = await storedOf(reader);
    expect(late.all.reliesOnFoldsAbove).to.not.equal(null);
    await expectExact(reader);
    clock.advance(COUNT_FOLDING.keepAppliedMs + 1000);
    await folder.foldNow(true); // sweeps the applied folds
    const swept = await storedOf(reader);
    expect(swept.covered, 'Redis no longer holds the folds above the kept March documents').to.equal(false);
    await expectExact(reader);
    const again = await storedOf(reader);
    expect(again.all.reliesOnFoldsAbove, 'the second read kept the documents as MongoDB holds them').to.equal(null);
    await expectExact(folding);
  });

  it('reads a kept document again in the background once it is old, and answers from the new one', async () => {
    await reader.refreshed(); // the reads of the last test may have started some
    await count(51, 62, '2026-04-03', 2);
    await folder.foldNow(true);
    expect((await storedOf(reader)).all.reliesOnFoldsAbove).to.not.equal(null);
    clock.advance(11_000);
    await storedOf(reader);
    await reader.refreshed();
    expect((await storedOf(reader)).all.reliesOnFoldsAbove).to.equal(null);
    await expectExact(reader);
    await foldAndSweep();
    await expectExact(reader);
  });

  it('keeps no more than its byte bound, and answers the same', async () => {
    const small = new BreakdownStore(mongo, 5000, { clock, cacheBytes: 1500 });
    await expectExact(small);
    const usage = small.cacheUsage();
    expect(usage.entries).to.be.greaterThan(0);
    expect(usage.bytes).to.be.at.most(1500);
    await count(52, 61, '2026-03-30', 2);
    await folder.foldNow(true);
    await expectExact(small);
    expect(small.cacheUsage().bytes).to.be.at.most(1500);
    const none = new BreakdownStore(mongo, 5000, { clock, cacheBytes: 0 });
    await expectExact(none);
    expect(none.cacheUsage()).to.deep.equal({ bytes: 0, entries: 0 });
  });
});
