/**
 * Benchmark (prints figures, asserts nothing): an administrator's campaign search on the local store, the
 * cost that FerretDB patch 0007 (the regex tested in SQLite) is for. 10,000 campaign-like
 * records stored as the campaign service stores them (`VersionedStore`, its four list indexes), one in seven
 * named "Spring Sale"; then `currentPage` as `CampaignRepository.listPage` calls it for `q=spring sale`
 * without an owner or a status: the first page of 51 and a deep page (after the 1,200th match). Several
 * servers may be given (e.g. FerretDB built with and without 0007 on two ports); they are seeded alike and
 * timed round by round, alternately.
 *
 *   node --import tsx tests/bench/search-page.bench.ts with=mongodb://127.0.0.1:27082/ without=mongodb://127.0.0.1:27083/ [rounds=60]
 */
import { performance } from 'node:perf_hooks';
import { MongoClient, type Db } from 'mongodb';
import { searchPatternOf } from '../../packages/platform/src';
import { VersionedStore, type CurrentPosition } from '../../packages/storage/src';
import { listedCampaign } from './lists';
import { percentile } from './load';

const CAMPAIGNS = 10_000;
const PAGE = 51;
const DEEP_MATCH = 1_200;

type CampaignLike = { ownerAccountId: string } & Record<string, unknown>;

interface Server {
  label: string;
  client: MongoClient;
  db: Db;
  store: VersionedStore<CampaignLike>;
  deep: CurrentPosition;
  samples: { first: number[]; deep: number[] };
}

const search = () => {
  const pattern = searchPatternOf('spring sale')!;
  return { $or: [{ name: pattern }, { title: pattern }] };
};

async function seed(db: Db): Promise<VersionedStore<CampaignLike>> {
  const store = new VersionedStore<CampaignLike>(db, 'campaign', 'campaigns', 'campaign_history');
  await store.createListIndexes();
  const start = Date.now() - 30 * 24 * 3_600_000;
  for (let from = 0; from < CAMPAIGNS; from += 1_000) {
    const records = Array.from({ length: 1_000 }, (_, offset) => {
      const index = from + offset;
      const createdAt = new Date(start + index * 250_000 - (index % 10 === 1 ? 250_000 : 0));
      return {
        ...listedCampaign(index + 1, index),
        _id: index + 1,
        version: 2,
        createdAt,
        updatedAt: new Date(createdAt.getTime() + 60_000),
      };
    });
    await store.current.insertMany(records as never[], { ordered: false });
  }
  return store;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const rounds = Number(args.find((arg) => /^\d+$/.test(arg)) ?? 60);
  const targets = args.filter((arg) => arg.includes('='));
  if (targets.length === 0) throw new Error('give at least one label=mongodb://host:port/');
  const dbName = `search_page_bench_${Date.now().toString(36)}`;
  const servers: Server[] = [];
  try {
    for (const target of targets) {
      const [label, url] = [target.slice(0, target.indexOf('=')), target.slice(target.indexOf('=') + 1)];
      const client = await MongoClient.connect(url);
      const db = client.db(dbName);
      const server = { label, client, db } as Server;
      servers.push(server);
      server.store = await seed(db);
      const [deep] = await server.store.current.find(search()).sort({ createdAt: -1, _id: -1 }).skip(DEEP_MATCH - 1).limit(1).toArray();
      server.deep = [deep!.createdAt as Date, deep!._id as number];
      server.samples = { first: [], deep: [] };
    }
    console.log(`search page bench: ${CAMPAIGNS.toLocaleString('en')} campaigns, 1 in 7 named "Spring Sale", q=spring sale, pages of ${PAGE}, ${rounds} rounds`);
    for (let round = 0; round < rounds; round += 1) {
      for (const server of round % 2 === 0 ? servers : [...servers].reverse()) {
        for (const [page, after] of [['first', null], ['deep', server.deep]] as const) {
          const started = performance.now();
          const records = await server.store.currentPage(search(), after, PAGE);
          server.samples[page].push(performance.now() - started);
          if (records.length !== PAGE) throw new Error(`${server.label}: a ${page} page of ${records.length}`);
        }
      }
    }
    for (const server of servers) {
      for (const page of ['first', 'deep'] as const) {
        const samples = server.samples[page];
        console.log(`  ${server.label.padEnd(10)} ${page.padEnd(6)} page: p50 ${percentile(samples, 50).toFixed(1)} ms, p95 ${percentile(samples, 95).toFixed(1)} ms`);
      }
    }
  } finally {
    for (const server of servers) {
      await server.db.dropDatabase().catch(() => undefined);
      await server.client.close();
    }
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
