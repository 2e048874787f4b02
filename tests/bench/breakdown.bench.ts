/**
 * Benchmark (prints figures, asserts nothing): the totals breakdown (API.md `stats/breakdown`) over a
 * network of 10,000 campaigns (100 advertisers of 100) and 2,000 platforms (40 owners of 50), with a month
 * of facts seeded through CountRecorder (as tests/bench/folder.bench.ts seeds: allocations spread over the
 * last 30 days, each fact counted at the end of its allocation's UTC day) and folded by a CountFolder into
 * the day documents. Then the breakdown use case of the tracking service (the MongoDB and Redis reads and
 * the sums, ordering and paging; not the HTTP hop) is timed, sequential calls, for an advertiser, a
 * publisher owner and an administrator, all time and the last 30 days, with how many day documents each
 * call reads. Then, for the administrator, with a fold pass of new facts before every round of calls (as a
 * live system folds every second or so): the first call after the pass, and the pass's time.
 *
 *   MONGO_URL=mongodb://127.0.0.1:27051/ REDIS_URL=redis://127.0.0.1:6379 \
 *     node --import tsx tests/bench/breakdown.bench.ts [facts=60000] [calls per case=40]
 *
 * BREAKDOWN_BENCH_KEEP=1 keeps the database (its name is printed); BREAKDOWN_BENCH_DB=<name> times the
 * calls again on a kept database, without seeding or folding (the fold of a month takes minutes).
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { CountJournal, CountRecorder, UnfoldedCounts, type CountedAllocation } from '../../packages/counting/src';
import { COUNT_FOLDING, CountFolder, TotalsStore } from '../../packages/counting/src/totals';
import { createLogger, Redis, waitForRedis } from '../../packages/platform/src';
import { connectMongo } from '../../packages/storage/src';
import { seededRandom } from '../../packages/testkit/src';
import { parseBreakdownQuery, planBreakdown } from '../../services/tracking/src/domain/breakdown';
import { readBreakdown } from '../../services/tracking/src/use-cases/read-breakdown';
import { percentile } from './load';

const DAY_MS = 86_400_000;
const FACTS = Number(process.argv[2] ?? 60_000);
const CALLS = Number(process.argv[3] ?? 40);
const ADVERTISERS = 100;
const CAMPAIGNS_EACH = 100;
const PUBLISHER_OWNERS = 40;
const PLATFORMS_EACH = 50;
const CAMPAIGNS = ADVERTISERS * CAMPAIGNS_EACH;
const PLATFORMS = PUBLISHER_OWNERS * PLATFORMS_EACH;
const IN_FLIGHT = 256;
/** New facts counted before each fold pass of the timing under folding (a second or so of live traffic). */
const FACTS_PER_PASS = 200;
const runId = `breakdown${Date.now().toString(36)}`;
const KEPT_DB = process.env.BREAKDOWN_BENCH_DB;
const prefix = `${runId}:`;

const campaignOwner = (campaignId: number) => String(10_000 + Math.ceil(campaignId / CAMPAIGNS_EACH));
const platformOwner = (publisherId: number) => String(20_000 + Math.ceil(publisherId / PLATFORMS_EACH));
const log = (message: string) => process.stderr.write(`[breakdown bench] ${message}\n`);

async function main(): Promise<void> {
  const mongoUrl = process.env.MONGO_URL;
  if (!mongoUrl) throw new Error('MONGO_URL is required');
  // The services' client answers 503 after 1 s; a fold of a month's facts runs scripts longer than that on a shared machine.
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { connectionName: 'breakdown-bench', commandTimeout: 30_000 });
  await waitForRedis(redis);
  const dbName = KEPT_DB ?? `breakdown_bench_${runId}`;
  // Counting the documents scans the collection on FerretDB: far longer than a service's deadline.
  const mongo = await connectMongo({ url: mongoUrl, dbName, operationTimeoutMS: 600_000 });
  const totals = new TotalsStore(mongo, 30_000);
  await totals.ensureIndexes();
  const journal = new CountJournal(redis, prefix);
  const recorder = new CountRecorder(redis, prefix, 30_000);
  const unfolded = new UnfoldedCounts(redis, prefix, 30_000);
  const clock = { now: () => new Date() };
  const random = seededRandom(20261127);
  let failedPasses = 0;
  console.log(`breakdown bench ${runId} (database ${dbName}): ${FACTS.toLocaleString('en')} facts over 30 days, ${CAMPAIGNS.toLocaleString('en')} campaigns of ${ADVERTISERS} advertisers, ${PLATFORMS.toLocaleString('en')} platforms of ${PUBLISHER_OWNERS} owners`);

  try {
    if (!KEPT_DB) await seedAndFold();
    await timeCalls();
    await timeCallsWhileFolding();
  } finally {
    if (process.env.BREAKDOWN_BENCH_KEEP !== '1' && !KEPT_DB) await mongo.db!.dropDatabase();
    await mongo.close();
    for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 1000 }) as AsyncIterable<string[]>) if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  }

  async function countAllocation(i: number, campaignId: number, publisherId: number, allocatedAt: Date, now: Date): Promise<void> {
    const allocation: CountedAllocation = { campaignId, publisherId, campaignOwnerAccountId: campaignOwner(campaignId), publisherOwnerAccountId: platformOwner(publisherId), allocatedAt };
    const allocationId = `${runId}-${i}`;
    await retried(() => recorder.countAdRequest(publisherId, { points: 1e9, windowSeconds: 60 }, { ...allocation, allocationId }, now));
    if (i % 12 < 5) await retried(() => recorder.countOnce('confirmedDeliveries', allocationId, allocation, now));
    if (i % 12 < 3) await retried(() => recorder.countOnce('clickedLinks', allocationId, allocation, now));
  }

  /** A fold pass; null when it failed (a Redis timeout on a shared machine): the next pass carries on from where it stopped. */
  async function passOf(folder: CountFolder) {
    try {
      return await folder.foldNow(true);
    } catch (error) {
      if ((failedPasses += 1) > 20) throw error;
      log(`a fold pass failed (${(error as Error).message}); again`);
      return null;
    }
  }

  /** A count sent again after a Redis timeout (a shared machine's): the same call counts once. */
  async function retried<T>(count: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await count();
      } catch (error) {
        if (attempt >= 5) throw error;
      }
    }
  }

  async function seedAndFold(): Promise<void> {
    const allocations = Math.round(FACTS * 0.6);
    const first = Date.now() - 30 * DAY_MS;
    let next = 0;
    let started = performance.now();
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < allocations) {
          const i = next++;
          const campaignId = 1 + Math.floor(random() * CAMPAIGNS);
          const publisherId = 1 + Math.floor(random() * PLATFORMS);
          const allocatedAt = new Date(first + ((i + random()) / allocations) * (30 * DAY_MS - 120_000));
          const now = new Date(Math.min(Math.floor(allocatedAt.getTime() / DAY_MS) * DAY_MS + DAY_MS - 1, Date.now() - 60_000));
          await countAllocation(i, campaignId, publisherId, allocatedAt, now);
        }
      }),
    );
    log(`seeded in ${((performance.now() - started) / 1000).toFixed(0)} s`);

    const folder = new CountFolder({ journal, totals, clock, logger: createLogger({ service: 'breakdown-bench', level: 'silent' }), tickMs: 0, graceMs: 0, keepAppliedMs: 0, leaseMs: 60_000 });
    started = performance.now();
    for (;;) {
      const pass = await passOf(folder);
      if (pass && pass.applied === 0 && (await journal.oldestUnapplied()).folds === 0) break;
    }
    await folder.stop();
    const foldSeconds = (performance.now() - started) / 1000;
    const documents = await mongo.db!.collection('counts_days').countDocuments();
    console.log(`folded in ${foldSeconds.toFixed(0)} s: ${documents.toLocaleString('en')} day documents`);
  }

  function casesOf(): Array<[string, string | undefined, string]> {
    const advertiser = campaignOwner(1);
    const publisherOwner = platformOwner(1);
    return [
      [`advertiser ${advertiser} (100 campaigns)`, advertiser, 'by=campaign'],
      [`advertiser ${advertiser} (100 campaigns)`, advertiser, `by=campaign${last30()}`],
      [`advertiser ${advertiser} (100 campaigns)`, advertiser, 'by=publisher'],
      [`publisher owner ${publisherOwner} (50 platforms)`, publisherOwner, 'by=publisher'],
      [`publisher owner ${publisherOwner} (50 platforms)`, publisherOwner, `by=publisher${last30()}`],
      [`publisher owner ${publisherOwner} (50 platforms)`, publisherOwner, 'by=campaign'],
      ['administrator (whole network)', undefined, 'by=campaign'],
      ['administrator (whole network)', undefined, `by=campaign${last30()}`],
      ['administrator (whole network)', undefined, 'by=publisher'],
      ['administrator (whole network)', undefined, `by=publisher${last30()}&sort=clickedLinks`],
      ['administrator (whole network)', undefined, 'by=publisher&campaignId=1'],
    ];
  }

  function last30(): string {
    const today = new Date().toISOString().slice(0, 10);
    return `&from=${new Date(Date.now() - 29 * DAY_MS).toISOString().slice(0, 10)}&to=${today}`;
  }

  function label(queryString: string): string {
    return queryString.replace(last30(), '&from/to: last 30 days');
  }

  /** One call of the use case, its time (ms) and answer. */
  async function call(queryString: string, visibleTo: string | undefined) {
    const parsed = parseBreakdownQuery(Object.fromEntries(new URLSearchParams(queryString)));
    if (!parsed.ok) throw new Error(parsed.code);
    // The use case loads @pilot/counting's build, this bench its source: the same classes, apart for the type checker.
    const deps = { totals, unfolded } as unknown as Parameters<typeof readBreakdown>[0];
    const started = performance.now();
    const answer = await readBreakdown(deps, parsed.query, visibleTo);
    return { ms: performance.now() - started, answer, parsed: parsed.query };
  }

  function figures(times: number[]): string {
    return `${percentile(times, 50).toFixed(1)} | ${percentile(times, 95).toFixed(1)} | ${Math.max(...times).toFixed(1)}`;
  }

  async function timeCalls(): Promise<void> {
    const rows: string[] = [];
    for (const [who, visibleTo, queryString] of casesOf()) {
      const { parsed } = await call(queryString, visibleTo);
      const plan = planBreakdown(parsed.by, { ...parsed.filter, visibleTo });
      const stored = await Promise.all(plan.candidates.map((scope) => totals.readScope(parsed.by, scope, parsed.filter)));
      const documentsRead = stored.reduce((sum, scope) => sum + scope.length, 0);
      const times: number[] = [];
      for (let n = 0; n < CALLS; n += 1) times.push((await call(queryString, visibleTo)).ms);
      let { answer } = await call(queryString, visibleTo);
      let items = answer.items.length;
      for (let cursor = answer.nextCursor; cursor !== null; ) {
        answer = (await call(`${queryString}&limit=100&cursor=${cursor}`, visibleTo)).answer;
        items += answer.items.length;
        cursor = answer.nextCursor;
      }
      rows.push(`| ${who} | ${label(queryString)} | ${documentsRead.toLocaleString('en')} | ${items.toLocaleString('en')} | ${figures(times)} |`);
      log(rows[rows.length - 1]!);
    }
    console.log(`\nbreakdown calls at rest, ${CALLS} sequential each (ms; the first page of 50; items: all pages; load average ${loadAverage()})\n| account | query | day documents read | items | p50 | p95 | max |\n|---|---|---|---|---|---|---|\n${rows.join('\n')}`);
  }

  /**
   * A fold pass of new facts (today, across the network) before every round; then the administrator's
   * calls, each the first after the pass. Applied folds are kept as in the services (COUNT_FOLDING).
   */
  async function timeCallsWhileFolding(): Promise<void> {
    const folder = new CountFolder({ journal, totals, clock, logger: createLogger({ service: 'breakdown-bench', level: 'silent' }), tickMs: 0, ...COUNT_FOLDING, graceMs: 0, leaseMs: 60_000 });
    const admin = casesOf().filter(([, visibleTo, queryString]) => visibleTo === undefined && !queryString.includes('campaignId'));
    const times = new Map<string, number[]>();
    const passes: number[] = [];
    let next = FACTS;
    for (let round = 0; round < CALLS; round += 1) {
      for (let n = 0; n < FACTS_PER_PASS; n += 1, next += 1) {
        await countAllocation(next, 1 + Math.floor(random() * CAMPAIGNS), 1 + Math.floor(random() * PLATFORMS), new Date(), new Date());
      }
      const started = performance.now();
      while (!(await passOf(folder)));
      passes.push(performance.now() - started);
      for (const [, visibleTo, queryString] of admin) {
        const { ms } = await call(queryString, visibleTo);
        times.set(queryString, [...(times.get(queryString) ?? []), ms]);
        log(`round ${round + 1}, pass ${passes[passes.length - 1]!.toFixed(0)} ms: ${label(queryString)} ${ms.toFixed(1)} ms`);
      }
    }
    await folder.stop();
    const rows = admin.map(([who, , queryString]) => `| ${who} | ${label(queryString)} | ${figures(times.get(queryString)!)} |`);
    console.log(`\nthe administrator's calls with a fold pass of ${FACTS_PER_PASS} new facts before each round, ${CALLS} rounds (ms; the first call after the pass; load average ${loadAverage()})\n| account | query | p50 | p95 | max |\n|---|---|---|---|---|\n${rows.join('\n')}`);
    console.log(`fold passes: p50 ${percentile(passes, 50).toFixed(0)} ms, p95 ${percentile(passes, 95).toFixed(0)} ms`);
  }
}

function loadAverage(): string {
  return loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
