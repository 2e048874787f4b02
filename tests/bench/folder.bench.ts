/**
 * Benchmark (prints figures, asserts nothing): the count folder on the local store, its speed and its
 * memory. A month of counted facts is seeded through CountRecorder the way scripts/bench.sh seeds it
 * (allocations spread over 30 days, each fact counted at the end of its allocation's UTC day, campaigns
 * and publishers drawn by a seeded generator), with no folder running; then one folder folds all of it,
 * pass after pass, while this process's memory is sampled every 100 ms. Then the same again in the same
 * process with another folder (the replica that takes over the lease) and a second month of facts, to
 * show that what a folder holds does not grow with what it folded before.
 *
 * Printed: grain-days in the totals after each round and how many a second the folder wrote (target
 * >= 2,000), the fold's seconds, the store commands (by name) and this process's CPU per 1,000 grain-days,
 * and the process's RSS and heap before, at the peak of, and after each fold (after a forced garbage
 * collection).
 *
 *   MONGO_URL=mongodb://127.0.0.1:27028/ REDIS_URL=redis://127.0.0.1:6379 \
 *     node --expose-gc --import tsx tests/bench/folder.bench.ts [facts per month=300000]
 *
 * FERRETDB_PID=<pid> (the local store's process, `.data/<name>/ferretdb.pid`) adds the store's CPU per 1,000
 * grain-days, read from /proc.
 *
 * COUNTING_SRC=<directory> runs another version of @pilot/counting's source (an earlier commit's, copied
 * into packages/counting/ so that it finds its dependencies) for a figure before and after.
 */
import { performance } from 'node:perf_hooks';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type * as Counting from '../../packages/counting/src';
import type * as CountingTotals from '../../packages/counting/src/totals';
import type { CountedAllocation } from '../../packages/counting/src';
import { createLogger, createMetricsRegistry, createRedis, waitForRedis, type Registry } from '../../packages/platform/src';
import { connectMongo } from '../../packages/storage/src';
import { seededRandom } from '../../packages/testkit/src';

const DAY_MS = 86_400_000;
const FACTS = Number(process.argv[2] ?? 300_000);
/** BENCH_ROUNDS=1 folds the first month only. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CAMPAIGNS = 111;
const PUBLISHERS = 200;
/** As scripts/bench.sh seeds: Redis runs the scripts one at a time, so more in flight only queues them past the 1 s command timeout. */
const IN_FLIGHT = 64;
const runId = `fold${Date.now().toString(36)}`;
const prefix = `${runId}:`;

interface Memory {
  rss: number;
  heap: number;
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const memory = (): Memory => ({ rss: process.memoryUsage.rss(), heap: process.memoryUsage().heapUsed });
const collected = (): Memory => {
  global.gc?.();
  return memory();
};

async function main(): Promise<void> {
  const mongoUrl = process.env.MONGO_URL;
  if (!mongoUrl) throw new Error('MONGO_URL is required');
  const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'folder-bench');
  await waitForRedis(redis);
  // An earlier version exports everything from its index; this one keeps the MongoDB side in totals.ts.
  const source = process.env.COUNTING_SRC ? path.resolve(process.env.COUNTING_SRC) : path.resolve(__dirname, '../../packages/counting/src');
  const totalsEntry = path.join(source, 'totals.ts');
  // Earlier versions have a BreakdownStore and an HourlyStore of their own; this one writes the day documents only.
  type StoreOfEarlierVersions = new (connection: unknown, timeoutMs: number) => { ensureIndexes(): Promise<void>; applyFolds(...args: unknown[]): Promise<void> };
  const { CountFolder, CountJournal, CountRecorder, TotalsStore, BreakdownStore, HourlyStore } = {
    ...((await import(path.join(source, 'index.ts'))) as typeof Counting),
    ...((existsSync(totalsEntry) ? await import(totalsEntry) : {}) as typeof CountingTotals & { BreakdownStore?: StoreOfEarlierVersions; HourlyStore?: StoreOfEarlierVersions }),
  };

  const registry = createMetricsRegistry('folder-bench');
  const mongo = await connectMongo({ url: mongoUrl, dbName: `folder_bench_${runId}`, registry, operationTimeoutMS: 300_000 });
  const totals = new TotalsStore(mongo, 30_000);
  // An earlier version has no indexes to create.
  if (typeof totals.ensureIndexes === 'function') await totals.ensureIndexes();
  // As tracking folds: an earlier version into its breakdowns and hourly figures too.
  const breakdowns = BreakdownStore ? new BreakdownStore(mongo, 30_000) : undefined;
  const hourly = HourlyStore ? new HourlyStore(mongo, 30_000) : undefined;
  await breakdowns?.ensureIndexes();
  await hourly?.ensureIndexes();
  const storeSeconds = { totals: 0, breakdowns: 0, hourly: 0 };
  timeApplyFolds(totals, storeSeconds, 'totals');
  if (breakdowns) timeApplyFolds(breakdowns, storeSeconds, 'breakdowns');
  if (hourly) timeApplyFolds(hourly, storeSeconds, 'hourly');
  const journal = new CountJournal(redis, prefix);
  const recorder = new CountRecorder(redis, prefix, 30_000);
  const logger = createLogger({ service: 'folder-bench', level: 'silent' });
  const random = seededRandom(20261127);
  const log = (message: string) => process.stderr.write(`[folder bench] ${message}\n`);
  console.log(`folder bench ${runId} (${process.env.COUNTING_SRC ?? 'packages/counting/src'}): ${FACTS.toLocaleString('en')} facts a month, ${CAMPAIGNS} campaigns x ${PUBLISHERS} publishers, gc ${global.gc ? 'exposed' : 'NOT exposed (run with --expose-gc)'}`);

  /** Seeds a month of facts ending `monthsBack` months before now (60 % ad requests, 25 % confirmations, 15 % clicks). */
  const seed = async (round: number, endAt: number): Promise<number> => {
    const allocations = Math.round(FACTS * 0.6);
    const first = endAt - 30 * DAY_MS;
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < allocations) {
          const i = next++;
          const campaignId = 1 + Math.floor(random() * CAMPAIGNS);
          const publisherId = 1 + Math.floor(random() * PUBLISHERS);
          const allocatedAt = new Date(first + ((i + random()) / allocations) * (30 * DAY_MS - 60_000));
          const now = new Date(Math.floor(allocatedAt.getTime() / DAY_MS) * DAY_MS + DAY_MS - 1);
          const allocation: CountedAllocation = {
            campaignId,
            publisherId,
            campaignOwnerAccountId: campaignId <= 100 ? '3002' : '3001',
            publisherOwnerAccountId: `200${1 + (publisherId % 4)}`,
            allocatedAt,
          };
          const allocationId = `${runId}-${round}-${i}`;
          await recorder.countAdRequest(publisherId, { points: 1e9, windowSeconds: 60 }, { ...allocation, allocationId }, now);
          if (i % 12 < 5) await recorder.countOnce('confirmedDeliveries', allocationId, allocation, now);
          if (i % 12 < 3) await recorder.countOnce('clickedLinks', allocationId, allocation, now);
        }
      }),
    );
    return (performance.now() - started) / 1000;
  };

  /** Grain-days the totals hold (a scan: for the benchmark only; an earlier layout's shards and JSON days too, a day document is one). */
  const grainDays = async (): Promise<{ documents: number; grainDays: number }> => {
    let documents = await mongo.db!.collection('counts_days').estimatedDocumentCount();
    let days = documents;
    const names = (await mongo.db!.listCollections({}, { nameOnly: true }).toArray()).map(({ name }) => name).filter((name) => /^totals(_\d+)?$/.test(name));
    for (const name of names) {
      for await (const document of mongo.db!.collection(name).find({}, { projection: { days: 1 }, timeoutMode: 'iteration' })) {
        documents += 1;
        days += Object.keys(typeof document.days === 'string' ? (JSON.parse(document.days) as object) : (document.days as object)).length;
      }
    }
    return { documents, grainDays: days };
  };

  const rounds: string[] = [];
  try {
    for (const round of [1, 2].slice(0, ROUNDS)) {
      // Round 2 counts the month before round 1's: new documents for the same grains, as a backlog would.
      const seconds = await seed(round, Date.now() - (round - 1) * 31 * DAY_MS - 60_000);
      log(`round ${round}: seeded in ${seconds.toFixed(0)} s`);
      const before = collected();
      const existing = await grainDays();
      let peak = memory();
      const sampler = setInterval(() => {
        const now = memory();
        peak = { rss: Math.max(peak.rss, now.rss), heap: Math.max(peak.heap, now.heap) };
      }, 100);
      const folder = new CountFolder({ journal, totals, ...(breakdowns ? { breakdowns } : {}), ...(hourly ? { hourly } : {}), clock: { now: () => new Date() }, logger, tickMs: 0, graceMs: 0, keepAppliedMs: 0, leaseMs: 15_000 });
      const started = performance.now();
      const cpu = process.cpuUsage();
      const storeCpuBefore = storeCpuMs();
      const commandsBefore = await storeCommands(registry);
      const storeSecondsBefore = { ...storeSeconds };
      let passes = 0;
      for (;;) {
        const pass = await folder.foldNow(true);
        passes += 1;
        if (pass.applied === 0 && (await journal.oldestUnapplied()).folds === 0) break;
      }
      const foldSeconds = (performance.now() - started) / 1000;
      const cpuUsed = process.cpuUsage(cpu);
      const storeCpu = storeCpuMs() - storeCpuBefore;
      const commands = await storeCommands(registry, commandsBefore);
      clearInterval(sampler);
      await folder.stop();
      const after = collected();
      const stored = await grainDays();
      const written = stored.grainDays - existing.grainDays;
      rounds.push(
        `round ${round}: ${written.toLocaleString('en')} grain-days in ${(stored.documents - existing.documents).toLocaleString('en')} new documents, folded in ${foldSeconds.toFixed(1)} s (${passes} passes): ` +
          `${Math.round(written / foldSeconds).toLocaleString('en')} grain-days/s (target >= 2,000); ` +
          `per 1,000 grain-days: ${perThousand(commands, written)} store commands, ${Math.round(((cpuUsed.user + cpuUsed.system) / 1000 / written) * 1000).toLocaleString('en')} ms folder CPU${process.env.FERRETDB_PID ? `, ${Math.round((storeCpu / written) * 1000).toLocaleString('en')} ms store CPU` : ''}; ` +
          `applying: ${(Object.keys(storeSeconds) as Array<keyof typeof storeSeconds>).map((store) => `${store} ${(storeSeconds[store] - storeSecondsBefore[store]).toFixed(1)} s`).join(', ')}; ` +
          `RSS ${mb(before.rss)} before, ${mb(peak.rss)} at peak, ${mb(after.rss)} after; heap ${mb(before.heap)} before, ${mb(peak.heap)} at peak, ${mb(after.heap)} after`,
      );
      log(rounds[rounds.length - 1]!);
    }
    console.log(rounds.join('\n'));
  } finally {
    await mongo.db!.dropDatabase();
    await mongo.close();
    for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 1000 }) as AsyncIterable<string[]>) if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  }
}

/** The local store's CPU so far (user and system, ms), when FERRETDB_PID names its process; 0 otherwise. */
function storeCpuMs(): number {
  if (!process.env.FERRETDB_PID) return 0;
  const fields = readFileSync(`/proc/${process.env.FERRETDB_PID}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime, fields 14 and 15 of stat(5), in clock ticks of 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The store commands sent so far by name (less `before`'s), from the driver's command counter. */
async function storeCommands(registry: Registry, before: Record<string, number> = {}): Promise<Record<string, number>> {
  const metric = await registry.getSingleMetric('pilot_store_commands_total')?.get();
  const counts: Record<string, number> = {};
  for (const { labels, value } of metric?.values ?? []) counts[String(labels.command)] = value - (before[String(labels.command)] ?? 0);
  return counts;
}

/** `commands` per 1,000 grain-days: the total, then by command name. */
function perThousand(commands: Record<string, number>, grainDays: number): string {
  const per = (count: number) => ((count / grainDays) * 1000).toFixed(1);
  const total = Object.values(commands).reduce((sum, count) => sum + count, 0);
  const named = Object.entries(commands).filter(([, count]) => count > 0).map(([name, count]) => `${name} ${per(count)}`);
  return `${per(total)} (${named.join(', ')})`;
}

/** Adds the seconds each `applyFolds` call of `store` takes to `seconds[name]`. */
function timeApplyFolds<T extends { applyFolds: (...args: never[]) => Promise<unknown> }, K extends string>(store: T, seconds: Record<K, number>, name: K): void {
  const apply = store.applyFolds.bind(store) as (...args: unknown[]) => Promise<unknown>;
  (store as { applyFolds: unknown }).applyFolds = async (...args: unknown[]) => {
    const started = performance.now();
    try {
      return await apply(...args);
    } finally {
      seconds[name] += (performance.now() - started) / 1000;
    }
  };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
