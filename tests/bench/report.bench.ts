/**
 * Benchmark (prints figures beside their targets, asserts nothing): the report (API.md `stats/report`) over
 * a network of 10,000 campaigns (100 advertisers of 100) and 2,000 platforms (40 owners of 50). It seeds
 * `counts_days` directly with `campaignPublisher` day documents (the report's grain, decision 0055): each
 * day of the last 30, `pairs` campaigns (from campaign 1 up) each on one platform. Then the report use case of
 * the tracking service (the MongoDB and Redis reads, grouping, order, paging; not the HTTP hop) is timed,
 * sequential calls: a JSON page of three dimensions for an administrator, an advertiser and a publisher
 * owner, and the CSV of every row.
 *
 *   MONGO_URL=mongodb://127.0.0.1:27034/ REDIS_URL=redis://127.0.0.1:6379 \
 *     node --import tsx tests/bench/report.bench.ts [pairs a day=10000] [calls per case=20]
 *
 * Targets (the issue's): a page p95 at most 50 ms; the CSV of 30 days x 1,000 campaigns under 2 s (run
 * with pairs=1000 for that one).
 */
import { performance } from 'node:perf_hooks';
import { dayKeyOf, grainFieldsOf, UnfoldedCounts } from '../../packages/counting/src';
import { TotalsStore, type DayDocument } from '../../packages/counting/src/totals';
import { Redis, waitForRedis } from '../../packages/platform/src';
import { connectMongo } from '../../packages/storage/src';
import { csvOf, parseReportQuery } from '../../services/tracking/src/domain/report';
import { readReport } from '../../services/tracking/src/use-cases/read-report';
import { percentile } from './load';

const DAY_MS = 86_400_000;
const PAIRS = Number(process.argv[2] ?? 10_000);
const CALLS = Number(process.argv[3] ?? 20);
const CAMPAIGNS_EACH = 100;
const PLATFORMS = 2_000;
const PLATFORMS_EACH = 50;
const runId = `report${Date.now().toString(36)}`;

const campaignOwner = (campaignId: number) => String(10_000 + Math.ceil(campaignId / CAMPAIGNS_EACH));
const platformOwner = (publisherId: number) => String(20_000 + Math.ceil(publisherId / PLATFORMS_EACH));
const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);

async function main(): Promise<void> {
  const mongoUrl = process.env.MONGO_URL;
  if (!mongoUrl) throw new Error('MONGO_URL is required');
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { connectionName: 'report-bench' });
  await waitForRedis(redis);
  const dbName = `report_bench_${runId}`;
  const mongo = await connectMongo({ url: mongoUrl, dbName, operationTimeoutMS: 600_000 });
  const totals = new TotalsStore(mongo, 30_000);
  await totals.ensureIndexes();
  // The use case's types are the packages' built ones; these are the same classes from their sources.
  const deps = { totals, unfolded: new UnfoldedCounts(redis, `${runId}:`, 30_000) } as unknown as Parameters<typeof readReport>[0];
  const to = dayOf(Date.now());
  const from = dayOf(Date.now() - 29 * DAY_MS);
  console.log(`report bench ${runId}: ${PAIRS.toLocaleString('en')} campaign-on-platform documents a day over 30 days (${(PAIRS * 30).toLocaleString('en')}), 10,000 campaigns, ${PLATFORMS.toLocaleString('en')} platforms`);
  try {
    const started = performance.now();
    const days = mongo.db!.collection<DayDocument>('counts_days');
    for (let day = 0; day < 30; day += 1) {
      const date = dayOf(Date.now() - day * DAY_MS);
      const documents: DayDocument[] = [];
      for (let campaignId = 1; campaignId <= PAIRS; campaignId += 1) {
        const publisherId = 1 + ((campaignId * 7 + day) % PLATFORMS);
        const fields = grainFieldsOf(`cp:${campaignId}:${publisherId}`);
        documents.push({ _id: dayKeyOf(fields, date), ...fields, day: date, adRequests: 1 + (campaignId % 13), confirmedDeliveries: campaignId % 5, clickedLinks: campaignId % 3, campaignOwnerAccountId: campaignOwner(campaignId), publisherOwnerAccountId: platformOwner(publisherId), lastFold: 1, fence: 0 });
      }
      for (let start = 0; start < documents.length; start += 5_000) await days.insertMany(documents.slice(start, start + 5_000), { ordered: false });
    }
    console.log(`seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const traits = (campaignId: number) => ({ language: campaignId % 2 === 0 ? 'en' : 'de', format: 'bot' });
    const cases: Array<[string, string | undefined, string]> = [
      ['administrator', undefined, 'by=day,campaign,publisher'],
      ['administrator', undefined, 'by=day,language,format&sort=adRequests'],
      [`advertiser ${campaignOwner(1)} (100 campaigns)`, campaignOwner(1), 'by=day,campaign,publisher'],
      [`publisher owner ${platformOwner(1)} (50 platforms)`, platformOwner(1), 'by=day,publisher,campaign'],
    ];
    console.log('case | query | rows | p50 ms | p95 ms | target');
    for (const [who, viewer, raw] of cases) {
      const parsed = parseReportQuery(Object.fromEntries(new URLSearchParams(`${raw}&from=${from}&to=${to}`)), new Date());
      if (!parsed.ok) throw new Error(parsed.code);
      const times: number[] = [];
      let rows = 0;
      for (let call = 0; call < CALLS; call += 1) {
        const begun = performance.now();
        rows = (await readReport(deps, parsed.query, viewer, traits)).all.length;
        times.push(performance.now() - begun);
      }
      console.log(`${who} | ${raw} (a page of 50) | ${rows.toLocaleString('en')} | ${percentile(times, 50).toFixed(0)} | ${percentile(times, 95).toFixed(0)} | p95 <= 50`);
    }
    const parsed = parseReportQuery({ by: 'day,campaign,language', format: 'csv', from, to }, new Date());
    if (!parsed.ok) throw new Error(parsed.code);
    const times: number[] = [];
    let bytes = 0;
    for (let call = 0; call < Math.min(CALLS, 5); call += 1) {
      const begun = performance.now();
      bytes = csvOf((await readReport(deps, parsed.query, undefined, traits)).all, parsed.query.by).length;
      times.push(performance.now() - begun);
    }
    console.log(`administrator | CSV by=day,campaign,language, 30 days x ${PAIRS.toLocaleString('en')} campaigns (${(bytes / 1e6).toFixed(1)} MB) | ${(PAIRS * 30).toLocaleString('en')} | ${percentile(times, 50).toFixed(0)} | ${percentile(times, 95).toFixed(0)} | under 2,000 at 1,000 campaigns`);
  } finally {
    await mongo.db!.dropDatabase();
    await mongo.close();
    redis.disconnect();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
