/**
 * Benchmark (prints figures, asserts nothing): the memory of a process holding the folder lease under
 * steady traffic, as a tracking replica holds it in the soak. Facts are counted through CountRecorder at
 * a steady rate (the soak's mix: ad requests, first confirmations and clicks of 100 platforms of 4 owners
 * and 10 campaigns), in intervals of INTERVAL_MS, while a CountFolder ticking every second folds them
 * into the day documents. Every 10 s it reads the RSS and the heap (after a forced garbage
 * collection, so the heap is what is kept, not what awaits collection), the heap V8 reserved and the
 * memory outside it (buffers); each minute it prints the minute's peaks. A kept heap that grows minute
 * after minute is something kept; a flat one is not.
 *
 *   MONGO_URL=mongodb://127.0.0.1:27051/ REDIS_URL=redis://127.0.0.1:6379 \
 *     node --expose-gc --import tsx tests/bench/folder-memory.bench.ts [minutes=4] [facts a second=150] [interval ms=5000] [take over after minutes=0]
 *
 * HEAP_SNAPSHOTS=1 writes a heap snapshot after the first minute and at the end (.data/), to compare.
 */
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { mkdirSync } from 'node:fs';
import { writeHeapSnapshot } from 'node:v8';
import { CountJournal, CountRecorder, type CountedAllocation } from '../../packages/counting/src';
import { COUNT_FOLDING, CountFolder, TotalsStore } from '../../packages/counting/src/totals';
import { createLogger, createRedis, waitForRedis } from '../../packages/platform/src';
import { connectMongo } from '../../packages/storage/src';
import { seededRandom } from '../../packages/testkit/src';

const MINUTES = Number(process.argv[2] ?? 4);
const RATE = Number(process.argv[3] ?? 150);
const INTERVAL_MS = Number(process.argv[4] ?? 5_000);
/** The folder starts after this many minutes (0: at once): a replica taking over the lease and its backlog. */
const TAKE_OVER_AFTER = Number(process.argv[5] ?? 0);
const runId = `foldmem${Date.now().toString(36)}`;
const prefix = `${runId}:`;
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

async function main(): Promise<void> {
  const mongoUrl = process.env.MONGO_URL;
  if (!mongoUrl) throw new Error('MONGO_URL is required');
  if (!global.gc) throw new Error('run with --expose-gc');
  const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'folder-memory-bench');
  await waitForRedis(redis);
  const mongo = await connectMongo({ url: mongoUrl, dbName: `folder_memory_${runId}` });
  const totals = new TotalsStore(mongo, 10_000);
  await totals.ensureIndexes();
  const journal = new CountJournal(redis, prefix);
  const recorder = new CountRecorder(redis, prefix, 10_000, INTERVAL_MS);
  const logger = createLogger({ service: 'folder-memory-bench', level: 'silent' });
  const folder = new CountFolder({ journal, totals, clock: { now: () => new Date() }, logger, tickMs: 1000, ...COUNT_FOLDING });
  const random = seededRandom(20261127);
  const snapshots = process.env.HEAP_SNAPSHOTS === '1' ? path.resolve(__dirname, '../../.data', runId) : null;
  if (snapshots) mkdirSync(snapshots, { recursive: true });
  console.log(`folder memory bench ${runId}: ${MINUTES} min, ${RATE} facts/s, intervals of ${INTERVAL_MS} ms, folder tick 1 s, folding from minute ${TAKE_OVER_AFTER + 1}`);

  let counted = 0;
  let stopping = false;
  const traffic = (async () => {
    const started = performance.now();
    while (!stopping) {
      const due = Math.floor(((performance.now() - started) / 1000) * RATE);
      const calls: Promise<unknown>[] = [];
      for (; counted < due; counted += 1) {
        const campaignId = 1 + Math.floor(random() * 10);
        const publisherId = 1 + Math.floor(random() * 100);
        const allocation: CountedAllocation = { campaignId, publisherId, campaignOwnerAccountId: '3001', publisherOwnerAccountId: `200${1 + (publisherId % 4)}`, allocatedAt: new Date() };
        const allocationId = `${runId}-${counted}`;
        calls.push(
          recorder.countAdRequest(publisherId, { points: 1e9, windowSeconds: 60 }, { ...allocation, allocationId }, new Date()).then(async () => {
            if (counted % 2 === 0) await recorder.countOnce('confirmedDeliveries', allocationId, allocation, new Date());
            if (counted % 4 === 0) await recorder.countOnce('clickedLinks', allocationId, allocation, new Date());
          }),
        );
      }
      await Promise.all(calls);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();

  if (TAKE_OVER_AFTER === 0) folder.start();
  const rows: string[] = [];
  try {
    for (let minute = 1; minute <= MINUTES; minute += 1) {
      if (minute === TAKE_OVER_AFTER + 1 && TAKE_OVER_AFTER > 0) folder.start();
      const peak = { rss: 0, heapTotal: 0, heap: 0, external: 0 };
      for (let sample = 0; sample < 6; sample += 1) {
        await new Promise((resolve) => setTimeout(resolve, 10_000));
        const before = process.memoryUsage();
        peak.rss = Math.max(peak.rss, before.rss);
        peak.heapTotal = Math.max(peak.heapTotal, before.heapTotal);
        global.gc();
        const after = process.memoryUsage();
        peak.heap = Math.max(peak.heap, after.heapUsed);
        peak.external = Math.max(peak.external, after.external);
      }
      rows.push(
        `minute ${minute}${minute > TAKE_OVER_AFTER ? ' (folding)' : ''}: peak RSS ${mb(peak.rss)} MB, V8 heap reserved ${mb(peak.heapTotal)} MB, heap kept (after GC) ${mb(peak.heap)} MB, external ${mb(peak.external)} MB, ${counted.toLocaleString('en')} allocations counted`,
      );
      process.stderr.write(`[folder memory] ${rows[rows.length - 1]}\n`);
      if (snapshots && (minute === 1 || minute === MINUTES)) writeHeapSnapshot(path.join(snapshots, `minute-${minute}.heapsnapshot`));
    }
    console.log(rows.join('\n'));
  } finally {
    stopping = true;
    await traffic;
    await folder.stop();
    await mongo.db!.dropDatabase();
    await mongo.close();
    for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 1000 }) as AsyncIterable<string[]>) if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
