/**
 * Benchmark (prints figures, asserts nothing): what writing the day documents costs, per 1,000 grain-days,
 * through `TotalsStore.applyFolds` alone (no Redis, no folder): a month of facts drawn as scripts/bench.sh
 * seeds them (campaigns and publishers by a seeded generator, 60 % ad requests, 25 % confirmations, 15 %
 * clicks, each day's facts in one fold) is applied the way the folder applies it, 200 grains a chunk, into
 * a fresh database. With several source trees (an earlier commit's packages/counting/src copied beside it,
 * as for folder.bench.ts), each is run in turn, A B B A, on the same facts: the store commands, this
 * process's CPU and (with FERRETDB_PID) the store's CPU per 1,000 grain-days, medians of the rounds.
 *
 *   FERRETDB_PID=<pid> MONGO_URL=mongodb://127.0.0.1:27028/ node --import tsx tests/bench/day-writes.bench.ts \
 *     [facts=40000] [rounds=2] [source directory...]
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type * as Counting from '../../packages/counting/src';
import type * as CountingTotals from '../../packages/counting/src/totals';
import { createMetricsRegistry, type Registry } from '../../packages/platform/src';
import { connectMongo } from '../../packages/storage/src';
import { seededRandom } from '../../packages/testkit/src';

const DAY_MS = 86_400_000;
const FACTS = Number(process.argv[2] ?? 40_000);
const ROUNDS = Number(process.argv[3] ?? 2);
const SOURCES = process.argv.length > 4 ? process.argv.slice(4).map((source) => path.resolve(source)) : [path.resolve(__dirname, '../../packages/counting/src')];
const CAMPAIGNS = 111;
const PUBLISHERS = 200;
const GRAINS_PER_CHUNK = 200;

type FoldCounts = Map<string, Map<string, number>>;

/** The month's folds (one per day, numbered by the day's end), and the owners of its campaigns and publishers. */
function monthOf(counting: typeof Counting): { folds: Array<{ seq: number; counts: FoldCounts }>; owners: Map<string, string> } {
  const random = seededRandom(20261129);
  const allocations = Math.round(FACTS * 0.6);
  const first = Math.floor(Date.now() / DAY_MS) * DAY_MS - 30 * DAY_MS;
  const folds = new Map<number, FoldCounts>();
  const owners = new Map<string, string>();
  const add = (counts: FoldCounts, grain: string, field: string) => {
    let fields = counts.get(grain);
    if (!fields) counts.set(grain, (fields = new Map()));
    fields.set(field, (fields.get(field) ?? 0) + 1);
  };
  for (let i = 0; i < allocations; i += 1) {
    const campaignId = 1 + Math.floor(random() * CAMPAIGNS);
    const publisherId = 1 + Math.floor(random() * PUBLISHERS);
    const allocatedAt = new Date(first + ((i + random()) / allocations) * (30 * DAY_MS - 60_000));
    const allocation = { campaignId, publisherId, campaignOwnerAccountId: campaignId <= 100 ? '3002' : '3001', publisherOwnerAccountId: `200${1 + (publisherId % 4)}`, allocatedAt };
    const seq = Math.floor(allocatedAt.getTime() / DAY_MS) * DAY_MS + DAY_MS;
    let counts = folds.get(seq);
    if (!counts) folds.set(seq, (counts = new Map()));
    owners.set(`c:${campaignId}`, allocation.campaignOwnerAccountId).set(`p:${publisherId}`, allocation.publisherOwnerAccountId);
    const day = counting.dayOf(allocatedAt);
    const kinds: Counting.TotalKind[] = ['adRequests', ...(i % 12 < 5 ? ['confirmedDeliveries' as const] : []), ...(i % 12 < 3 ? ['clickedLinks' as const] : [])];
    for (const kind of kinds) {
      for (const grain of counting.grainsOf(allocation, kind)) {
        add(counts, grain, counting.fieldOf(day, kind));
        add(counts, grain, counting.hourFieldOf(allocatedAt, kind));
      }
    }
  }
  return { folds: [...folds].map(([seq, counts]) => ({ seq, counts })), owners };
}

/** The grains of the month in a shuffled order (as a set's scan gives them), in chunks of GRAINS_PER_CHUNK. */
function chunksOf(folds: Array<{ counts: FoldCounts }>): string[][] {
  const random = seededRandom(7);
  const grains = [...new Set(folds.flatMap(({ counts }) => [...counts.keys()]))];
  for (let i = grains.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [grains[i], grains[j]] = [grains[j]!, grains[i]!];
  }
  const chunks: string[][] = [];
  for (let start = 0; start < grains.length; start += GRAINS_PER_CHUNK) chunks.push(grains.slice(start, start + GRAINS_PER_CHUNK));
  return chunks;
}

function storeCpuMs(): number {
  if (!process.env.FERRETDB_PID) return 0;
  const fields = readFileSync(`/proc/${process.env.FERRETDB_PID}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function commandsOf(registry: Registry): Promise<Record<string, number>> {
  const metric = await registry.getSingleMetric('pilot_store_commands_total')?.get();
  const counts: Record<string, number> = {};
  for (const { labels, value } of metric?.values ?? []) counts[String(labels.command)] = value;
  return counts;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

async function main(): Promise<void> {
  const url = process.env.MONGO_URL;
  if (!url) throw new Error('MONGO_URL is required');
  const trees = await Promise.all(
    SOURCES.map(async (source) => ({
      source,
      counting: (await import(path.join(source, 'index.ts'))) as typeof Counting,
      totals: (await import(path.join(source, 'totals.ts'))) as typeof CountingTotals,
    })),
  );
  const { folds, owners } = monthOf(trees[0]!.counting);
  const chunks = chunksOf(folds);
  const order = Array.from({ length: ROUNDS }, (_, round) => (round % 2 === 0 ? trees : [...trees].reverse())).flat();
  const figures = new Map<string, { store: number[]; process: number[]; seconds: number[]; commands: string; grainDays: number }>();
  console.log(`day writes bench: ${FACTS.toLocaleString('en')} facts a month, ${chunks.length} chunks of ${GRAINS_PER_CHUNK} grains, ${ROUNDS} rounds, ${process.env.FERRETDB_PID ? '' : 'no FERRETDB_PID: no store CPU'}`);
  for (const [run, tree] of order.entries()) {
    const registry = createMetricsRegistry('day-writes-bench');
    const mongo = await connectMongo({ url, dbName: `day_writes_bench_${Date.now().toString(36)}_${run}`, registry, operationTimeoutMS: 300_000 });
    try {
      const totals = new tree.totals.TotalsStore(mongo, 30_000);
      await totals.ensureIndexes();
      const commandsBefore = await commandsOf(registry);
      const [storeBefore, cpu, started] = [storeCpuMs(), process.cpuUsage(), performance.now()];
      for (const grains of chunks) {
        const chunk = folds.map(({ seq, counts }) => ({ seq, counts: new Map(grains.filter((grain) => counts.has(grain)).map((grain) => [grain, counts.get(grain)!])) }));
        await totals.applyFolds(chunk.filter(({ counts }) => counts.size > 0), owners);
      }
      const seconds = (performance.now() - started) / 1000;
      const used = process.cpuUsage(cpu);
      const storeMs = storeCpuMs() - storeBefore;
      const commandsAfter = await commandsOf(registry);
      const grainDays = await mongo.db!.collection('counts_days').countDocuments();
      const per = (value: number) => (value / grainDays) * 1000;
      const entry = figures.get(tree.source) ?? { store: [], process: [], seconds: [], commands: '', grainDays };
      entry.store.push(per(storeMs));
      entry.process.push(per((used.user + used.system) / 1000));
      entry.seconds.push(seconds);
      entry.commands = Object.entries(commandsAfter)
        .map(([name, count]) => [name, count - (commandsBefore[name] ?? 0)] as const)
        .filter(([, count]) => count > 0)
        .map(([name, count]) => `${name} ${per(count).toFixed(1)}`)
        .join(', ');
      figures.set(tree.source, entry);
      process.stderr.write(`[day writes] ${path.relative(process.cwd(), tree.source)}: ${grainDays} grain-days in ${seconds.toFixed(1)} s, store ${per(storeMs).toFixed(0)} ms, process ${per((used.user + used.system) / 1000).toFixed(0)} ms per 1,000\n`);
    } finally {
      await mongo.db!.dropDatabase();
      await mongo.close();
    }
  }
  for (const [source, entry] of figures) {
    console.log(
      `${path.relative(process.cwd(), source)}: ${entry.grainDays.toLocaleString('en')} grain-days; per 1,000: store CPU ${median(entry.store).toFixed(0)} ms ` +
        `(${entry.store.map((v) => v.toFixed(0)).join(', ')}), this process ${median(entry.process).toFixed(0)} ms (${entry.process.map((v) => v.toFixed(0)).join(', ')}), ` +
        `commands ${entry.commands}; seconds ${entry.seconds.map((s) => s.toFixed(1)).join(', ')}`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
