/**
 * Benchmark (prints figures, asserts nothing): the totals breakdown (API.md `stats/breakdown`) over a
 * network of 10,000 campaigns (100 advertisers of 100) and 2,000 platforms (40 owners of 50), with a month
 * of facts seeded through CountRecorder (as tests/bench/folder.bench.ts seeds: allocations spread over the
 * last 30 days, each fact counted at the end of its allocation's UTC day) and folded by a CountFolder into
 * the totals and the breakdowns. Then the breakdown use case of the tracking service (the MongoDB and Redis
 * reads and the sums, ordering and paging; not the HTTP hop) is timed, sequential calls, for an advertiser,
 * a publisher owner and an administrator, all time and the last 30 days, and how many documents each call
 * reads is printed.
 *
 *   MONGO_URL=mongodb://127.0.0.1:27051/ REDIS_URL=redis://127.0.0.1:6379 \
 *     node --import tsx tests/bench/breakdown.bench.ts [facts=60000] [calls per case=40]
 *
 * BREAKDOWN_BENCH_KEEP=1 keeps the database (its name is printed); BREAKDOWN_BENCH_DB=<name> times the
 * calls again on a kept database, without seeding or folding (the fold of a month takes minutes).
 */
import { performance } from 'node:perf_hooks';
import { CountJournal, CountRecorder, UnfoldedCounts, type CountedAllocation } from '../../packages/counting/src';
import { BreakdownStore, CountFolder, TotalsStore } from '../../packages/counting/src/totals';
import { createLogger } from '../../packages/logging/src';
import { connectMongo } from '../../packages/mongo/src';
import { createRedis, waitForRedis } from '../../packages/redis/src';
import { seededRandom } from '../../packages/testkit/src';
import { parseBreakdownQuery, planBreakdown } from '../../services/tracking/src/domain/breakdown';
import { readBreakdown } from '../../services/tracking/src/use-cases';
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
const runId = `breakdown${Date.now().toString(36)}`;
const KEPT_DB = process.env.BREAKDOWN_BENCH_DB;
const prefix = `${runId}:`;

const campaignOwner = (campaignId: number) => String(10_000 + Math.ceil(campaignId / CAMPAIGNS_EACH));
const platformOwner = (publisherId: number) => String(20_000 + Math.ceil(publisherId / PLATFORMS_EACH));
const log = (message: string) => process.stderr.write(`[breakdown bench] ${message}\n`);

async function main(): Promise<void> {
  const mongoUrl = process.env.MONGO_URL;
  if (!mongoUrl) throw new Error('MONGO_URL is required');
  const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'breakdown-bench');
  await waitForRedis(redis);
  const dbName = KEPT_DB ?? `breakdown_bench_${runId}`;
  // Counting the documents scans the collection on FerretDB: far longer than a service's deadline.
  const mongo = await connectMongo({ url: mongoUrl, dbName, operationTimeoutMS: 600_000 });
  const totals = new TotalsStore(mongo, 30_000);
  const breakdowns = new BreakdownStore(mongo, 30_000);
  await totals.ensureIndexes();
  await breakdowns.ensureIndexes();
  const journal = new CountJournal(redis, prefix);
  const recorder = new CountRecorder(redis, prefix, 30_000);
  const unfolded = new UnfoldedCounts(redis, prefix, 30_000);
  const clock = { now: () => new Date() };
  const random = seededRandom(20261127);
  console.log(`breakdown bench ${runId} (database ${dbName}): ${FACTS.toLocaleString('en')} facts over 30 days, ${CAMPAIGNS.toLocaleString('en')} campaigns of ${ADVERTISERS} advertisers, ${PLATFORMS.toLocaleString('en')} platforms of ${PUBLISHER_OWNERS} owners`);

  try {
    if (!KEPT_DB) await seedAndFold();
    await timeCalls();
  } finally {
    if (process.env.BREAKDOWN_BENCH_KEEP !== '1' && !KEPT_DB) await mongo.db!.dropDatabase();
    await mongo.close();
    for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 1000 }) as AsyncIterable<string[]>) if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
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
          const allocation: CountedAllocation = { campaignId, publisherId, campaignOwnerAccountId: campaignOwner(campaignId), publisherOwnerAccountId: platformOwner(publisherId), allocatedAt };
          const allocationId = `${runId}-${i}`;
          await recorder.countAdRequest(publisherId, { points: 1e9, windowSeconds: 60 }, { ...allocation, allocationId }, now);
          if (i % 12 < 5) await recorder.countOnce('confirmedDeliveries', allocationId, allocation, now);
          if (i % 12 < 3) await recorder.countOnce('clickedLinks', allocationId, allocation, now);
        }
      }),
    );
    log(`seeded in ${((performance.now() - started) / 1000).toFixed(0)} s`);

    const folder = new CountFolder({ journal, totals, breakdowns, clock, logger: createLogger({ service: 'breakdown-bench', level: 'silent' }), tickMs: 0, graceMs: 0, keepAppliedMs: 0, leaseMs: 60_000 });
    started = performance.now();
    for (;;) {
      const pass = await folder.foldNow(true);
      if (pass.applied === 0 && (await journal.oldestUnapplied()).folds === 0) break;
    }
    await folder.stop();
    const foldSeconds = (performance.now() - started) / 1000;
    const documents = await mongo.db!.collection('breakdowns').countDocuments();
    const throughDays = await mongo.db!.collection('breakdowns').countDocuments({ day: { $ne: null } });
    console.log(`folded in ${foldSeconds.toFixed(0)} s: ${documents.toLocaleString('en')} breakdown documents (${throughDays.toLocaleString('en')} of them through-day documents of viewers' scopes)`);
  }

  async function timeCalls(): Promise<void> {
    const today = new Date().toISOString().slice(0, 10);
    const thirtyDaysAgo = new Date(Date.now() - 29 * DAY_MS).toISOString().slice(0, 10);
    const last30 = `&from=${thirtyDaysAgo}&to=${today}`;
    const advertiser = campaignOwner(1);
    const publisherOwner = platformOwner(1);
    const cases: Array<[string, string | undefined, string]> = [
      [`advertiser ${advertiser} (100 campaigns)`, advertiser, 'by=campaign'],
      [`advertiser ${advertiser} (100 campaigns)`, advertiser, `by=campaign${last30}`],
      [`advertiser ${advertiser} (100 campaigns)`, advertiser, 'by=publisher'],
      [`publisher owner ${publisherOwner} (50 platforms)`, publisherOwner, 'by=publisher'],
      [`publisher owner ${publisherOwner} (50 platforms)`, publisherOwner, `by=publisher${last30}`],
      [`publisher owner ${publisherOwner} (50 platforms)`, publisherOwner, 'by=campaign'],
      ['administrator (whole network)', undefined, 'by=campaign'],
      ['administrator (whole network)', undefined, `by=campaign${last30}`],
      ['administrator (whole network)', undefined, 'by=publisher'],
      ['administrator (whole network)', undefined, `by=publisher${last30}&sort=clickedLinks`],
      ['administrator (whole network)', undefined, 'by=publisher&campaignId=1'],
    ];
    // The use case loads @pilot/counting's build, this bench its source: the same classes, apart for the type checker.
    const deps = { totals, breakdowns, unfolded, clock } as unknown as Parameters<typeof readBreakdown>[0];
    const rows: string[] = [];
    for (const [who, visibleTo, queryString] of cases) {
      const parsed = parseBreakdownQuery(Object.fromEntries(new URLSearchParams(queryString)));
      if (!parsed.ok) throw new Error(parsed.code);
      const plan = planBreakdown(parsed.query.by, { ...parsed.query.filter, visibleTo });
      const stored = await breakdowns.read(parsed.query.by, plan.candidates, parsed.query.filter, await totals.firstMonth(), clock.now());
      const documentsRead = [...stored.values()].reduce((sum, scope) => sum + scope.documentsRead, 0);
      let answer = await readBreakdown(deps, parsed.query, visibleTo);
      const times: number[] = [];
      for (let call = 0; call < CALLS; call += 1) {
        const callStarted = performance.now();
        answer = await readBreakdown(deps, parsed.query, visibleTo);
        times.push(performance.now() - callStarted);
      }
      let items = answer.items.length;
      let pages = 1;
      for (let cursor = answer.nextCursor; cursor !== null; pages += 1) {
        const page = parseBreakdownQuery({ ...Object.fromEntries(new URLSearchParams(queryString)), limit: '100', cursor });
        if (!page.ok) throw new Error(page.code);
        const more = await readBreakdown(deps, page.query, visibleTo);
        items += more.items.length;
        cursor = more.nextCursor;
      }
      times.sort((a, b) => a - b);
      rows.push(
        `| ${who} | ${queryString.replace(last30, '&from/to: last 30 days')} | ${documentsRead} | ${items.toLocaleString('en')} | ${percentile(times, 50).toFixed(1)} | ${percentile(times, 95).toFixed(1)} | ${times[times.length - 1]!.toFixed(1)} |`,
      );
      log(rows[rows.length - 1]!);
    }
    console.log(`\nbreakdown calls, ${CALLS} sequential each (ms; the first page of 50; items: all pages)\n| account | query | documents read | items | p50 | p95 | max |\n|---|---|---|---|---|---|---|\n${rows.join('\n')}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
