/**
 * Benchmark (prints figures beside their targets, asserts nothing): the report (API.md `stats/report`) over
 * a network of 10,000 campaigns (100 advertisers of 100) and 2,000 platforms (40 owners of 50). Each day of
 * the last 30, `pairs` campaigns (from campaign 1 up) each run on one platform (or `platformsEach`); `counts_days` is seeded
 * directly with the documents the folder would write for them: every grain a fact counts in (the network,
 * owners, campaigns, platforms, campaign-on-platform and the owners' splits). Then the report use case of the
 * tracking service (the MongoDB and Redis reads, grouping, order, paging; not the HTTP hop) is timed,
 * sequential calls, one case per source (decision 0057): the reader's totals, the per-campaign documents, the
 * per-platform documents, the campaign-on-platform documents (and their next page, cut from the rows the
 * first page read); and the CSV of every row. Beside each: the
 * store commands and this process's CPU per call (the reads' decoding, grouping, sorting).
 *
 * `bash scripts/bench.sh` runs it as its `report` phase (tests/bench/run.ts); tests/bench/report.bench.ts alone. Targets (the issue's): a page
 * p95 at most 50 ms; the CSV of 30 days x 1,000 campaigns under 2 s.
 */
import { performance } from 'node:perf_hooks';
import type { Collection } from 'mongodb';
import { dayKeyOf, grainFieldsOf, grainsOf, UnfoldedCounts } from '../../packages/counting/src';
import { TotalsStore, type DayDocument } from '../../packages/counting/src/totals';
import { createMetricsRegistry, Redis, waitForRedis } from '../../packages/platform/src';
import { connectMongo } from '../../packages/storage/src';
import { parseReportQuery } from '../../services/tracking/src/domain/report';
import { readReport, readReportRows, reportCsv } from '../../services/tracking/src/use-cases/read-report';
import { ReportSnapshots } from '../../services/tracking/src/use-cases/report-snapshots';
import { percentile } from './load';

const DAY_MS = 86_400_000;
const CAMPAIGNS_EACH = 100;
const PLATFORMS = 2_000;
const PLATFORMS_EACH = 50;
const PAGE_TARGET_MS = 50;
const CSV_TARGET_MS = 2_000;

const campaignOwner = (campaignId: number) => String(10_000 + Math.ceil(campaignId / CAMPAIGNS_EACH));
const platformOwner = (publisherId: number) => String(20_000 + Math.ceil(publisherId / PLATFORMS_EACH));
const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);

/** A reader of the report: the use case (a page, or the CSV), or another to compare with it on the same documents. */
export type ReportReader = (...args: Parameters<typeof readReport>) => Promise<{ nextCursor?: string | null }>;

/** The report's page, or for a CSV its every part, as the route sends them. */
const currentReader: ReportReader = async (deps, query, viewer, traits, snapshots) => {
  if (!query.csv) return readReport(deps, query, viewer, traits, snapshots);
  for await (const part of reportCsv(deps, query, viewer, traits)) if (part.length === 0) throw new Error('an empty part of the CSV');
  return {};
};

export interface ReportTiming {
  /** The reader's name (one per reader timed; `current`: the use case). */
  reader: string;
  who: string;
  query: string;
  /** The rows of the whole report (a page shows 50 of them). */
  rows: number;
  samples: number[];
  /** Per call: MongoDB commands, and this process's CPU ms. */
  commands: number;
  cpuMs: number;
  targetMs: number;
}

/** Seeds the documents of `pairs` campaigns a day over 30 days, times each case, and drops the database. */
export async function timeReports(options: { mongoUrl: string; redisUrl: string; pairs: number; platformsEach?: number; calls: number; log: (line: string) => void; readers?: Record<string, ReportReader> }): Promise<ReportTiming[]> {
  const { pairs, calls, log } = options;
  const platformsEach = options.platformsEach ?? 1;
  const readers = options.readers ?? { current: currentReader };
  const runId = `report${Date.now().toString(36)}`;
  const redis = new Redis(options.redisUrl, { connectionName: 'report-bench' });
  await waitForRedis(redis);
  const mongo = await connectMongo({ url: options.mongoUrl, dbName: `report_bench_${runId}`, operationTimeoutMS: 600_000, registry: createMetricsRegistry('report-bench') });
  let commands = 0;
  mongo.getClient().on('commandStarted', () => (commands += 1));
  const totals = new TotalsStore(mongo, 600_000);
  // The use case's types are the packages' built ones; these are the same classes from their sources.
  const deps = { totals, unfolded: new UnfoldedCounts(redis, `${runId}:`, 600_000) } as unknown as Parameters<typeof readReport>[0];
  const to = dayOf(Date.now());
  const from = dayOf(Date.now() - 29 * DAY_MS);
  try {
    await totals.ensureIndexes();
    const started = performance.now();
    const seeded = await seed(mongo.db!.collection<DayDocument>('counts_days'), pairs, platformsEach);
    log(`   seeded ${seeded.toLocaleString('en')} day documents (${(pairs * platformsEach * 30).toLocaleString('en')} campaign-on-platform) in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    // As if every campaign were active (the active campaigns' cache answers; no call to the campaign service).
    const traits = { traitsOf: (ids: Iterable<number>) => Promise.resolve(new Map([...new Set(ids)].map((id) => [id, { language: id % 2 === 0 ? 'en' : 'de', format: 'bot' }]))) };
    const admin = 'administrator';
    const advertiser = `advertiser ${campaignOwner(1)} (100 campaigns)`;
    const platformOwnerName = `publisher owner ${platformOwner(1)} (50 platforms)`;
    // The last element: time the page after the first (cut from the rows the first page read, report-snapshots.ts).
    const cases: Array<[string, string | undefined, string, number, 'next page'?]> = [
      [admin, undefined, 'by=day', PAGE_TARGET_MS],
      [admin, undefined, 'by=day,language,format&sort=adRequests', PAGE_TARGET_MS],
      [admin, undefined, 'by=day,publisher', PAGE_TARGET_MS],
      [admin, undefined, 'by=day,campaign,publisher', PAGE_TARGET_MS],
      [admin, undefined, 'by=day,campaign,publisher', PAGE_TARGET_MS, 'next page'],
      [advertiser, campaignOwner(1), 'by=day,campaign,language', PAGE_TARGET_MS],
      [advertiser, campaignOwner(1), 'by=day,campaign,publisher', PAGE_TARGET_MS],
      [platformOwnerName, platformOwner(1), 'by=day,publisher', PAGE_TARGET_MS],
      [platformOwnerName, platformOwner(1), 'by=day,publisher,campaign', PAGE_TARGET_MS],
      [admin, undefined, 'by=day,campaign,language&format=csv', CSV_TARGET_MS],
    ];
    const timings: ReportTiming[] = [];
    const parse = (raw: string) => {
      const parsed = parseReportQuery(Object.fromEntries(new URLSearchParams(`${raw}&from=${from}&to=${to}`)), new Date());
      if (!parsed.ok) throw new Error(parsed.code);
      return parsed.query;
    };
    for (const [who, viewer, raw, targetMs, nextPage] of cases) {
      for (const [reader, read] of Object.entries(readers)) {
        const snapshots = new ReportSnapshots();
        let query = parse(raw);
        if (nextPage) query = parse(`${raw}&cursor=${(await read(deps, query, viewer, traits, snapshots)).nextCursor}`);
        const samples: number[] = [];
        const rows = (await readReportRows(deps, query, viewer, traits)).rows.length;
        const commandsBefore = commands;
        const cpuBefore = process.cpuUsage();
        const times = query.csv ? Math.min(calls, 5) : calls;
        for (let call = 0; call < times; call += 1) {
          const begun = performance.now();
          await read(deps, query, viewer, traits, snapshots);
          samples.push(performance.now() - begun);
        }
        const cpu = process.cpuUsage(cpuBefore);
        const label = nextPage ? `${raw} (the next page)` : raw;
        timings.push({ reader, who, query: label, rows, samples, commands: (commands - commandsBefore) / times, cpuMs: (cpu.user + cpu.system) / 1000 / times, targetMs });
      }
    }
    return timings;
  } finally {
    await mongo.db!.dropDatabase();
    await mongo.close();
    redis.disconnect();
  }
}

/** The day documents the folder writes for the seeded facts (each campaign on `platformsEach` platforms a day): every grain each counts in. */
async function seed(days: Collection<DayDocument>, pairs: number, platformsEach: number): Promise<number> {
  let written = 0;
  for (let day = 0; day < 30; day += 1) {
    const date = dayOf(Date.now() - day * DAY_MS);
    const documents = new Map<string, DayDocument>();
    for (let fact = 0; fact < pairs * platformsEach; fact += 1) {
      const campaignId = 1 + Math.floor(fact / platformsEach);
      const publisherId = 1 + ((campaignId * 7 + day + (fact % platformsEach) * 311) % PLATFORMS);
      const allocation = { campaignId, publisherId, campaignOwnerAccountId: campaignOwner(campaignId), publisherOwnerAccountId: platformOwner(publisherId), allocatedAt: new Date(date) };
      const counts = { adRequests: 1 + (campaignId % 13), confirmedDeliveries: campaignId % 5, clickedLinks: campaignId % 3 };
      for (const grain of grainsOf(allocation, 'adRequests')) {
        const fields = grainFieldsOf(grain);
        const id = dayKeyOf(fields, date);
        let document = documents.get(id);
        if (!document) {
          const owners = { ...(fields.campaignId !== null ? { campaignOwnerAccountId: allocation.campaignOwnerAccountId } : {}), ...(fields.publisherId !== null ? { publisherOwnerAccountId: allocation.publisherOwnerAccountId } : {}) };
          documents.set(id, (document = { _id: id, ...fields, day: date, ...owners, lastFold: 1, fence: 0 }));
        }
        for (const [kind, count] of Object.entries(counts)) document[kind] = ((document[kind] as number | undefined) ?? 0) + count;
      }
    }
    const all = [...documents.values()];
    for (let start = 0; start < all.length; start += 5_000) await days.insertMany(all.slice(start, start + 5_000), { ordered: false });
    written += all.length;
  }
  return written;
}

/** The table the bench prints: each case beside its target, with its store commands and CPU per call. */
export function reportLines(timings: ReportTiming[]): string[][] {
  return [
    ['report (the use case, sequential calls)', 'reader', 'as', 'rows', 'p50', 'p95', 'store commands / call', 'CPU ms / call', 'target (p95)'],
    ...timings.map((timing) => [
      timing.query,
      timing.reader,
      timing.who,
      timing.rows.toLocaleString('en'),
      `${percentile(timing.samples, 50).toFixed(0)} ms`,
      `${percentile(timing.samples, 95).toFixed(0)} ms`,
      timing.commands.toFixed(1),
      timing.cpuMs.toFixed(0),
      `<= ${timing.targetMs.toLocaleString('en')} ms`,
    ]),
  ];
}
