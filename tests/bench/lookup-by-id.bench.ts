/**
 * Benchmark (prints figures, asserts nothing): does a workspace lookup by id cost the same with 10 and
 * with 100,000 records on the local store? For each size, a VersionedStore (what campaigns, publishers and
 * placements are) is seeded with that many records, each with a few history entries, then, for records
 * spread over the whole id range, side by side in one run: a read by id as the workspace's GET and every
 * change do it, and a change as a campaign transition does it (that read, then the guarded write and the
 * history insert until the answer; then, after it, the removal of the pending change, timed as well, which
 * is what a change costs when it answers only after it).
 * (Totals lookups are measured by scripts/bench.sh after a million counted facts.)
 *
 *   MONGO_URL=mongodb://127.0.0.1:27028/ [BENCH_SIZES=10,1000,100000] [BENCH_LIST_INDEXES=1] node --import tsx tests/bench/lookup-by-id.bench.ts [samples=200]
 *
 * BENCH_LIST_INDEXES=1 also declares the four list indexes, which every write maintains.
 */
import { performance } from 'node:perf_hooks';
import { connectMongo, VersionedStore } from '../../packages/storage/src';

interface Record {
  ownerAccountId: string;
  status: string;
  title: string;
}

const SIZES = (process.env.BENCH_SIZES ?? '10,1000,100000').split(',').map(Number);

interface Timing {
  p50: number;
  p95: number;
}
const HISTORY_PER_RECORD = 3;

function percentile(sorted: number[], p: number): number {
  const rank = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, rank)] ?? Number.NaN;
}

async function timed(samples: number, work: (i: number) => Promise<unknown>): Promise<Timing> {
  const durations: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    const started = performance.now();
    await work(i);
    durations.push(performance.now() - started);
  }
  durations.sort((a, b) => a - b);
  return { p50: percentile(durations, 50), p95: percentile(durations, 95) };
}

/** Times `work` until it answers and until `settle` (what runs after the answer) is done, one sample at a time. */
async function timedChange(samples: number, work: (i: number) => Promise<unknown>, settle: () => Promise<unknown>): Promise<{ answered: Timing; finished: Timing }> {
  const answered: number[] = [];
  const finished: number[] = [];
  for (let i = 0; i < samples; i += 1) {
    const started = performance.now();
    await work(i);
    answered.push(performance.now() - started);
    await settle();
    finished.push(performance.now() - started);
  }
  const timing = (durations: number[]) => {
    durations.sort((a, b) => a - b);
    return { p50: percentile(durations, 50), p95: percentile(durations, 95) };
  };
  return { answered: timing(answered), finished: timing(finished) };
}

/** Projections and history entries as VersionedStore writes them, inserted in bulk (seeded volume). */
async function seed(store: VersionedStore<Record>, count: number): Promise<void> {
  const at = new Date('2026-01-01T00:00:00Z');
  for (let start = 1; start <= count; start += 1000) {
    const ids = Array.from({ length: Math.min(1000, count - start + 1) }, (_, offset) => start + offset);
    const projections = ids.map((id) => ({ _id: id, ownerAccountId: String(id % 500), status: 'active', title: `Record ${id}`, version: HISTORY_PER_RECORD, createdAt: at, updatedAt: at }));
    await store.current.insertMany(projections as never[]);
    await store.history.insertMany(
      ids.flatMap((id) =>
        Array.from({ length: HISTORY_PER_RECORD }, (_, v) => ({
          _id: VersionedStore.entryId(id, v + 1),
          entity: 'bench',
          entityId: id,
          version: v + 1,
          ownerAccountId: String(id % 500),
          at,
          actorAccountId: '1',
          action: 'seeded',
          from: null,
          to: 'active',
          reason: null,
          state: { ownerAccountId: String(id % 500), status: 'active', title: `Record ${id}` },
          outbox: [],
        })),
      ) as never[],
    );
  }
}

async function main(): Promise<void> {
  const samples = Number(process.argv[2] ?? 200);
  const url = process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/';
  const connection = await connectMongo({ url, dbName: `lookup_bench_${Date.now()}` });
  const db = connection.db!;
  const results: Array<{ size: number; read: Timing; change: Timing; finished: Timing }> = [];
  try {
    for (const size of SIZES) {
      const store = new VersionedStore<Record>(db, 'bench', `records_${size}`, `history_${size}`);
      await store.ensureIndexes(); // the first start, on an empty store
      const started = performance.now();
      await seed(store, size);
      process.stderr.write(`seeded ${size} records in ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
      await store.ensureIndexes(); // a later start, on the data it finds
      if (process.env.BENCH_LIST_INDEXES === '1') await store.createListIndexes(); // as the campaign and platform stores declare them
      const idOf = (i: number) => 1 + ((i * 7919) % size);
      const read = await timed(samples, (i) => store.load(idOf(i)));
      console.log(`${String(size).padStart(7)} records: read p50 ${read.p50.toFixed(2)} ms p95 ${read.p95.toFixed(2)} ms`);
      // A change is one guarded write and its history insert, then answers; it removes its pending change
      // after the answer (`settled`). Each sample times both.
      const { answered, finished } = await timedChange(
        samples,
        async (i) => {
          const record = await store.load(idOf(i + samples));
          if (record) await store.change(record, { ...record, title: `changed ${i}` }, { at: new Date(), actorAccountId: '1', action: 'edited', from: null, to: null });
        },
        () => store.settled(),
      ).catch((error: unknown) => {
        console.log(`${String(size).padStart(7)} records: read+change failed: ${(error as Error).message}`);
        const none = { p50: Number.NaN, p95: Number.NaN };
        return { answered: none, finished: none };
      });
      results.push({ size, read, change: answered, finished });
    }
  } finally {
    await db.dropDatabase();
    await connection.close();
  }
  const small = results[0];
  const large = results[results.length - 1];
  const fmt = (value: number) => `${value.toFixed(2)} ms`;
  for (const result of results) {
    console.log(
      `${String(result.size).padStart(7)} records: read p50 ${fmt(result.read.p50)} p95 ${fmt(result.read.p95)} | read+change (answer) p50 ${fmt(result.change.p50)} p95 ${fmt(result.change.p95)} | read+change+removal p50 ${fmt(result.finished.p50)} p95 ${fmt(result.finished.p95)}`,
    );
  }
  if (small && large) {
    const ratio = (of: (result: (typeof results)[number]) => number) => (of(large) / of(small)).toFixed(2);
    console.log(`ratio ${large.size.toLocaleString('en')} / ${small.size} (p50): read ${ratio((r) => r.read.p50)}, read+change ${ratio((r) => r.change.p50)}`);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
