/**
 * Benchmark (prints figures, asserts nothing): what a mongoose model costs over the raw driver for the
 * operations of the hot paths: a lookup by string `_id` (totals reads, projection loads),
 * a replace by `_id` (the counting fold, projection writes) and an insert (history entries, markers).
 * Both sides work on the same kind of document in collections of the same size on the same connection,
 * in alternation, so drift of the machine hits both alike. Prints the latency (p50, p95) and the CPU time
 * this process spent per operation, which is what mongoose adds (the store's own time is the same).
 *
 *   MONGO_URL=mongodb://127.0.0.1:27034/ node --import tsx tests/bench/mongoose-overhead.bench.ts [samples=300]
 */
import { performance } from 'node:perf_hooks';
import { connectMongo, Mixed, modelOf, storedSchema } from '../../packages/storage/src';

interface Totals {
  _id: string;
  lastFold: number;
  days: string;
  campaignOwnerAccountId?: string;
  publisherOwnerAccountId?: string;
}

const schema = storedSchema<Totals>({
  _id: { type: String, required: true },
  lastFold: { type: Number, required: true },
  days: Mixed,
  campaignOwnerAccountId: String,
  publisherOwnerAccountId: String,
});

const DOCUMENTS = 200;

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
}

function documentOf(i: number, fold: number): Totals {
  const days = Object.fromEntries(Array.from({ length: 30 }, (_, d) => [`2026-01-${String(d + 1).padStart(2, '0')}`, { adRequests: i + d, confirmedDeliveries: d, clickedLinks: 1 }]));
  return { _id: `c:${i}`, lastFold: fold, days: JSON.stringify(days), campaignOwnerAccountId: String(i % 50) };
}

interface Side {
  durations: number[];
  cpuMicros: number;
}

async function measure(samples: number, sides: Record<'driver' | 'mongoose', (i: number) => Promise<unknown>>): Promise<Record<string, string>> {
  const result: Record<string, Side> = { driver: { durations: [], cpuMicros: 0 }, mongoose: { durations: [], cpuMicros: 0 } };
  for (let i = 0; i < samples; i += 1) {
    for (const name of i % 2 === 0 ? (['driver', 'mongoose'] as const) : (['mongoose', 'driver'] as const)) {
      const cpu = process.cpuUsage();
      const started = performance.now();
      await sides[name](i);
      result[name]!.durations.push(performance.now() - started);
      const used = process.cpuUsage(cpu);
      result[name]!.cpuMicros += used.user + used.system;
    }
  }
  return Object.fromEntries(
    Object.entries(result).map(([name, side]) => {
      const sorted = [...side.durations].sort((a, b) => a - b);
      return [name, `p50 ${percentile(sorted, 50).toFixed(2)} ms, p95 ${percentile(sorted, 95).toFixed(2)} ms, cpu ${(side.cpuMicros / samples).toFixed(0)} µs/op`];
    }),
  );
}

async function main(): Promise<void> {
  const url = process.env.MONGO_URL;
  if (!url) throw new Error('MONGO_URL is required');
  const samples = Number(process.argv[2] ?? 300);
  const connection = await connectMongo({ url, dbName: `bench_mongoose_${Date.now()}` });
  try {
    const db = connection.db!;
    const raw = db.collection<Totals>('raw_totals');
    const model = modelOf(connection, 'model_totals', schema);
    const seeded = Array.from({ length: DOCUMENTS }, (_, i) => documentOf(i, 1));
    await raw.insertMany(seeded.map((document) => ({ ...document })));
    await db.collection<Totals>('model_totals').insertMany(seeded.map((document) => ({ ...document })));
    for (let warm = 0; warm < 50; warm += 1) {
      await raw.findOne({ _id: `c:${warm}` });
      await model.findOne({ _id: `c:${warm}` }).lean<Totals>();
    }

    console.log(`${DOCUMENTS} documents per collection, ${samples} samples per side, FerretDB or MongoDB at ${url}`);
    console.log('findOne by _id', await measure(samples, {
      driver: (i) => raw.findOne({ _id: `c:${i % DOCUMENTS}` }),
      mongoose: (i) => model.findOne({ _id: `c:${i % DOCUMENTS}` }).lean<Totals>(),
    }));
    console.log('replaceOne by _id', await measure(samples, {
      driver: (i) => raw.replaceOne({ _id: `c:${i % DOCUMENTS}` }, documentOf(i % DOCUMENTS, i + 2)),
      mongoose: (i) => model.replaceOne({ _id: `c:${i % DOCUMENTS}` }, documentOf(i % DOCUMENTS, i + 2)),
    }));
    console.log('insertOne', await measure(samples, {
      driver: (i) => raw.insertOne({ ...documentOf(i, 1), _id: `new:${i}` }),
      mongoose: (i) => model.create({ ...documentOf(i, 1), _id: `new:${i}` }),
    }));
    await db.dropDatabase();
  } finally {
    await connection.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
