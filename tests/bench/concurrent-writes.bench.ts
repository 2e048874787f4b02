/**
 * Benchmark (prints figures, asserts nothing): what single-document atomicity costs the local store's
 * writes (FerretDB patch 0010 holds a collection's lock from an update's, a findAndModify's or a delete's
 * query through its write). Eight clients on eight connections each send 25 commands at once, for each
 * kind of write: `$inc` of one shared document, `$inc` of a document of their own in one collection (the
 * lock serializes them, MongoDB would not), the same in a collection of their own (no shared lock),
 * `findOneAndUpdate` of a counter document, a version-guarded `updateOne` of their own document,
 * `deleteOne` of their own documents, and `insertOne` (takes no lock). The collection holds 2,000
 * documents with one secondary index. Several servers may be given (e.g. FerretDB built with and without
 * 0010 on two ports); they are timed round by round, alternately. Printed: the operations a second over a
 * round, and the commands' p50 and p95.
 *
 *   node --import tsx tests/bench/concurrent-writes.bench.ts with=mongodb://127.0.0.1:27141/ without=mongodb://127.0.0.1:27142/ [rounds=10]
 */
import { performance } from 'node:perf_hooks';
import { MongoClient, type Collection, type Db } from 'mongodb';
import { percentile } from './load';

const CLIENTS = 8;
const PER_CLIENT = 25;
const SEEDED = 2_000;

interface Doc {
  _id: number | string;
  n: number;
  version: number;
  owner: number;
}

type Work = (collection: (name: string) => Collection<Doc>, client: number, i: number, round: number) => Promise<unknown>;

/** Each kind of write, as the client `client` sends its i-th command of a round. */
const WORKLOADS: ReadonlyArray<[string, Work]> = [
  ['$inc, one shared document', (c) => c('docs').updateOne({ _id: 0 }, { $inc: { n: 1 } })],
  ['$inc, own document', (c, client, i) => c('docs').updateOne({ _id: 1 + client * PER_CLIENT + i }, { $inc: { n: 1 } })],
  ['$inc, own collection', (c, client, i) => c(`own_${client}`).updateOne({ _id: i }, { $inc: { n: 1 } }, { upsert: true })],
  ['findOneAndUpdate counter', (c) => c('docs').findOneAndUpdate({ _id: 'counter' }, { $inc: { n: 1 } }, { upsert: true, returnDocument: 'after' })],
  [
    'guarded update, own document',
    async (c, client, i) => {
      const id = 1 + client * PER_CLIENT + i;
      const doc = await c('docs').findOne({ _id: id });
      return c('docs').updateOne({ _id: id, version: doc!.version }, { $set: { version: doc!.version + 1 } });
    },
  ],
  ['insertOne', (c, client, i, round) => c('inserted').insertOne({ _id: `${round}:${client}:${i}`, n: 0, version: 0, owner: client })],
  ['deleteOne, own document', (c, client, i, round) => c('inserted').deleteOne({ _id: `${round}:${client}:${i}` })],
];

interface Server {
  label: string;
  clients: MongoClient[];
  dbs: Db[];
  /** Per workload: operations a second (one figure a round) and command durations. */
  figures: Map<string, { rates: number[]; durations: number[] }>;
}

async function seed(db: Db): Promise<void> {
  const docs = db.collection<Doc>('docs');
  await docs.createIndex({ owner: 1, version: 1 });
  for (let from = 0; from <= SEEDED; from += 1_000) {
    await docs.insertMany(Array.from({ length: Math.min(1_000, SEEDED + 1 - from) }, (_, offset) => ({ _id: from + offset, n: 0, version: 0, owner: (from + offset) % 50 })));
  }
}

async function runRound(server: Server, name: string, work: Work, round: number): Promise<void> {
  const figures = server.figures.get(name) ?? { rates: [], durations: [] };
  server.figures.set(name, figures);
  const started = performance.now();
  await Promise.all(
    server.dbs.map(async (db, client) => {
      const collection = (collectionName: string) => db.collection<Doc>(collectionName);
      for (let i = 0; i < PER_CLIENT; i += 1) {
        const sent = performance.now();
        await work(collection, client, i, round);
        figures.durations.push(performance.now() - sent);
      }
    }),
  );
  figures.rates.push((CLIENTS * PER_CLIENT) / ((performance.now() - started) / 1000));
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const rounds = Number(args.find((arg) => /^\d+$/.test(arg)) ?? 10);
  const targets = args.filter((arg) => arg.includes('='));
  if (targets.length === 0) throw new Error('give at least one label=mongodb://host:port/');
  const dbName = `concurrent_writes_bench_${Date.now().toString(36)}`;
  const servers: Server[] = [];
  try {
    for (const target of targets) {
      const [label, url] = [target.slice(0, target.indexOf('=')), target.slice(target.indexOf('=') + 1)];
      const clients = await Promise.all(Array.from({ length: CLIENTS }, () => MongoClient.connect(url, { maxPoolSize: 1 })));
      const server: Server = { label, clients, dbs: clients.map((client) => client.db(dbName)), figures: new Map() };
      servers.push(server);
      await seed(server.dbs[0]!);
    }
    console.log(`concurrent writes bench: ${CLIENTS} clients x ${PER_CLIENT} commands a round, ${rounds} rounds, ${SEEDED.toLocaleString('en')} documents`);
    for (let round = 0; round < rounds; round += 1) {
      for (const [name, work] of WORKLOADS) {
        for (const server of round % 2 === 0 ? servers : [...servers].reverse()) await runRound(server, name, work, round);
      }
    }
    for (const [name] of WORKLOADS) {
      console.log(`  ${name}`);
      for (const server of servers) {
        const { rates, durations } = server.figures.get(name)!;
        console.log(
          `    ${server.label.padEnd(10)} ${percentile(rates, 50).toFixed(0).padStart(5)} ops/s (median of rounds) | command p50 ${percentile(durations, 50).toFixed(2)} ms, p95 ${percentile(durations, 95).toFixed(2)} ms`,
        );
      }
    }
  } finally {
    for (const server of servers) {
      await server.dbs[0]?.dropDatabase().catch(() => undefined);
      await Promise.all(server.clients.map((client) => client.close()));
    }
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
