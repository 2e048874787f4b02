/**
 * Benchmark (prints figures, asserts nothing): what the local store's grouped update and `_id $in` read
 * (patches 0004 and 0005 in scripts/ferretdb/) save a folder that replaces up to 200 documents in one bulk
 * write, on documents shaped as the month totals the folder wrote until decision 0052 (the patches' figures in
 * docs/performance-log.md were measured with it; today's folder, `$inc` into day documents, is measured by
 * tests/bench/day-writes.bench.ts). Side by side in one run, on the same documents: that bulk write as the folder sends it
 * (every statement names one document by `_id`: FerretDB writes them in one SQLite transaction), the same
 * bulk write with `upsert` on every statement (the documents exist, so the work is the same, but FerretDB
 * writes each statement in a transaction of its own, as without the patch), and 200 single `replaceOne`
 * commands two at a time (what the folder sent before). And its read of the group's documents: one find by
 * `_id: {$in: [...]}` (patch 0005: one index lookup per id, not a scan), against 200 `findOne` commands
 * eight at a time (what it sent before). And the folder's fenced bulk write (decision 0048: every filter
 * `{_id, fence: {$not: {$gt: <fence>}}}`, served by the `_id` index through patch 0011) against the same
 * bulk write by `_id` alone. Alternated round by round, medians printed.
 *
 *   MONGO_URL=mongodb://127.0.0.1:27028/ node --import tsx tests/bench/fold-commands.bench.ts [rounds=15] [documents=20000]
 */
import { performance } from 'node:perf_hooks';
import { MongoClient, type AnyBulkWriteOperation } from 'mongodb';

const ROUNDS = Number(process.argv[2] ?? 15);
const DOCUMENTS = Number(process.argv[3] ?? 20_000);
const GROUP = 200;

interface MonthTotals {
  _id: string;
  grain: string;
  month: string;
  lastFold: number;
  fence?: number;
  days: Record<string, { adRequests: number; confirmedDeliveries: number; clickedLinks: number; unfilledAdRequests: number }>;
}

/** A month document as the folder writes it: 30 days of the four figures. */
function monthTotals(index: number, fold: number): MonthTotals {
  const days: MonthTotals['days'] = {};
  for (let day = 1; day <= 30; day += 1) {
    days[`2026-11-${String(day).padStart(2, '0')}`] = { adRequests: fold + day, confirmedDeliveries: fold, clickedLinks: 1, unfilledAdRequests: 2 };
  }
  const grain = `cp:${index}:${index % 200}`;
  return { _id: `${grain}|2026-11`, grain, month: '2026-11', lastFold: fold, days };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

async function main(): Promise<void> {
  const url = process.env.MONGO_URL;
  if (!url) throw new Error('MONGO_URL is required');
  const client = await MongoClient.connect(url);
  const db = client.db(`fold_commands_bench_${Date.now().toString(36)}`);
  const totals = db.collection<MonthTotals>('totals');
  try {
    for (let start = 0; start < DOCUMENTS; start += 1_000) {
      await totals.insertMany(Array.from({ length: Math.min(1_000, DOCUMENTS - start) }, (_, k) => monthTotals(start + k, 1)));
    }
    console.log(`fold commands bench: ${DOCUMENTS.toLocaleString('en')} month documents, groups of ${GROUP}, ${ROUNDS} rounds`);
    let fold = 2;
    const group = (round: number) => Array.from({ length: GROUP }, (_, k) => ((round * GROUP + k) * 7919) % DOCUMENTS);
    const replacements = (indexes: number[], upsert: boolean): Array<AnyBulkWriteOperation<MonthTotals>> =>
      indexes.map((index) => {
        const next = monthTotals(index, fold);
        return { replaceOne: { filter: { _id: next._id }, replacement: next, upsert } };
      });
    const ways: Record<string, (indexes: number[]) => Promise<unknown>> = {
      'one bulk write, one transaction': (indexes) => totals.bulkWrite(replacements(indexes, false), { ordered: true }),
      'one bulk write, a transaction per statement': (indexes) => totals.bulkWrite(replacements(indexes, true), { ordered: true }),
      'one bulk write, fenced (the folder since decision 0048)': (indexes) =>
        totals.bulkWrite(
          indexes.map((index) => {
            const next = { ...monthTotals(index, fold), fence: 1 };
            return { replaceOne: { filter: { _id: next._id, fence: { $not: { $gt: 1 } } }, replacement: next } };
          }),
          { ordered: true },
        ),
      '200 replaceOne commands, two at a time': async (indexes) => {
        for (let at = 0; at < indexes.length; at += 2) {
          await Promise.all(indexes.slice(at, at + 2).map((index) => {
            const next = monthTotals(index, fold);
            return totals.replaceOne({ _id: next._id }, next);
          }));
        }
      },
    };
    const reads: Record<string, (indexes: number[]) => Promise<unknown>> = {
      'one find by _id $in': (indexes) => totals.find({ _id: { $in: indexes.map((index) => monthTotals(index, 0)._id) } }).toArray(),
      '200 findOne commands, eight at a time': async (indexes) => {
        for (let at = 0; at < indexes.length; at += 8) {
          await Promise.all(indexes.slice(at, at + 8).map((index) => totals.findOne({ _id: monthTotals(index, 0)._id })));
        }
      },
    };
    Object.assign(ways, reads);
    const times = new Map<string, number[]>(Object.keys(ways).map((name) => [name, []]));
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const [name, write] of Object.entries(ways)) {
        const indexes = group(round * times.size + [...times.keys()].indexOf(name));
        fold += 1;
        const started = performance.now();
        await write(indexes);
        times.get(name)?.push(performance.now() - started);
      }
    }
    for (const [name, values] of times) {
      const base = median(times.get(name in reads ? 'one find by _id $in' : 'one bulk write, one transaction') ?? []);
      const ms = median(values);
      console.log(`${name}: median ${ms.toFixed(0)} ms a group (${(ms / GROUP).toFixed(2)} ms a document), ${(ms / base).toFixed(2)}x the folder's way`);
    }
  } finally {
    await db.dropDatabase();
    await client.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
