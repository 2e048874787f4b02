/**
 * "Counting at volume" (docs/performance.md): a history of counted facts seeded through the counting code
 * itself, the running tracking service's folder left to move it into MongoDB, then the stats calls timed
 * through the gateway, and what per-event data is left behind.
 *
 * Seeding: @pilot/counting's CountRecorder, the code allocation and tracking count with, against the bench
 * system's Redis prefix. The recorder takes the time as an argument (its injectable clock): every fact is
 * given an allocation instant spread over the last 30 days, in order, and is counted at the end of that
 * allocation's UTC day (capped a minute before the seeding started), so the history lands in about 31
 * five-second intervals of the writer's clock, all of them past, which the folder claims and applies by
 * itself. Counting each fact at its own instant would make a few hundred thousand intervals: more than a
 * gigabyte of Redis on a machine shared with other work, for the same totals documents in the end.
 */
import { performance } from 'node:perf_hooks';
import { CountJournal, countKeys, CountRecorder, onceSetEnd, type CountedAllocation } from '../../packages/counting/src';
import { connectMongo } from '../../packages/storage/src';
import { createRedis, waitForRedis, type Redis } from '../../packages/platform/src';
import { seededRandom } from '../../packages/testkit/src';
import { percentile } from './load';
import type { BenchSystem } from './system';
import type { Browser } from './workspace';

const DAY_MS = 86_400_000;

export interface Owned {
  id: number;
  owner: string;
}

export interface SeedOptions {
  facts: number;
  days: number;
  /** Calls in flight at once (ioredis pipelines what is issued in the same turn). */
  inFlight: number;
  log(message: string): void;
}

export interface SeedResult {
  facts: number;
  adRequests: number;
  confirmedDeliveries: number;
  clickedLinks: number;
  seconds: number;
  /** Of the seeded facts, those of campaigns owned by each account: what its stats must answer. */
  byCampaignOwner: Map<string, { adRequests: number; confirmedDeliveries: number; clickedLinks: number }>;
  /** Time span of the allocations, for the from/to filters. */
  firstDay: string;
  lastDay: string;
}

/**
 * Seeds `facts` counted facts: 60 % ad requests (one per allocation, through the same script as the ad
 * request limit, with a limit no call reaches), 25 % first confirmations and 15 % first clicks of some of
 * those allocations (5 and 3 in every 12), each allocation on a random campaign and publisher.
 */
export async function seedCounts(system: BenchSystem, campaigns: Owned[], publishers: Owned[], options: SeedOptions): Promise<SeedResult> {
  const redis = createRedis(system.redisUrl, 'bench-seed');
  await waitForRedis(redis);
  const recorder = new CountRecorder(redis, system.redisPrefix, 30_000);
  const random = seededRandom(20261123);
  const allocations = Math.round(options.facts * 0.6);
  const startedAt = Date.now();
  const latestCount = startedAt - 60_000;
  const span = options.days * DAY_MS - 5 * 60_000;
  const first = startedAt - options.days * DAY_MS;
  const limit = { points: 1_000_000_000, windowSeconds: 60 };
  const result: SeedResult = {
    facts: 0,
    adRequests: 0,
    confirmedDeliveries: 0,
    clickedLinks: 0,
    seconds: 0,
    byCampaignOwner: new Map(),
    firstDay: new Date(first).toISOString().slice(0, 10),
    lastDay: new Date(first + span).toISOString().slice(0, 10),
  };
  const owned = (owner: string) => {
    let totals = result.byCampaignOwner.get(owner);
    if (!totals) {
      totals = { adRequests: 0, confirmedDeliveries: 0, clickedLinks: 0 };
      result.byCampaignOwner.set(owner, totals);
    }
    return totals;
  };

  const countOne = async (i: number): Promise<void> => {
    const campaign = campaigns[Math.floor(random() * campaigns.length)] as Owned;
    const publisher = publishers[Math.floor(random() * publishers.length)] as Owned;
    const allocatedAt = new Date(first + ((i + random()) / allocations) * span);
    const dayEnd = Math.floor(allocatedAt.getTime() / DAY_MS) * DAY_MS + DAY_MS - 1;
    const now = new Date(Math.min(dayEnd, latestCount));
    const allocation: CountedAllocation = {
      campaignId: campaign.id,
      publisherId: publisher.id,
      campaignOwnerAccountId: campaign.owner,
      publisherOwnerAccountId: publisher.owner,
      allocatedAt,
    };
    const totals = owned(campaign.owner);
    const allocationId = `${system.runId}-seed-${i}`;
    const ad = await recorder.countAdRequest(publisher.id, limit, { ...allocation, allocationId }, now);
    if (!ad.counted) throw new Error(`seeded ad request ${i} was not counted`);
    result.adRequests += 1;
    totals.adRequests += 1;
    const counts: Promise<void>[] = [];
    if (i % 12 < 5) {
      counts.push(
        recorder.countOnce('confirmedDeliveries', allocationId, allocation, now).then((counted) => {
          if (!counted) throw new Error(`seeded confirmation ${i} was not counted`);
          result.confirmedDeliveries += 1;
          totals.confirmedDeliveries += 1;
        }),
      );
    }
    if (i % 12 < 3) {
      counts.push(
        recorder.countOnce('clickedLinks', allocationId, allocation, now).then((counted) => {
          if (!counted) throw new Error(`seeded click ${i} was not counted`);
          result.clickedLinks += 1;
          totals.clickedLinks += 1;
        }),
      );
    }
    await Promise.all(counts);
  };

  try {
    let next = 0;
    let reported = 0;
    await Promise.all(
      Array.from({ length: options.inFlight }, async () => {
        while (next < allocations) {
          const i = next;
          next += 1;
          await countOne(i);
          if (next - reported >= allocations / 10) {
            reported = next;
            options.log(`   seeded ${Math.round((100 * next) / allocations)} % (${((Date.now() - startedAt) / 1000).toFixed(0)} s)`);
          }
        }
      }),
    );
  } finally {
    redis.disconnect();
  }
  result.facts = result.adRequests + result.confirmedDeliveries + result.clickedLinks;
  result.seconds = (Date.now() - startedAt) / 1000;
  return result;
}

export interface FoldProgress {
  /** The last fold claimed, as the instant its interval ends (a fold is numbered by it); null before the first. */
  lastClaimed: string | null;
  pending: number;
  openIntervals: number;
}

export async function foldProgress(redis: Redis, prefix: string): Promise<FoldProgress> {
  const keys = countKeys(prefix);
  const [sequence, pending, open] = await Promise.all([redis.get(keys.foldSequence), redis.zcard(keys.pendingFolds), redis.zcard(keys.openIntervals)]);
  return { lastClaimed: sequence ? new Date(Number(sequence)).toISOString() : null, pending, openIntervals: open };
}

export interface FoldWait {
  finished: boolean;
  seconds: number;
  before: FoldProgress;
  after: FoldProgress;
}

/** Waits until nothing is left unfolded (no open interval, no pending fold), or `timeoutSeconds`. */
export async function waitForFolding(system: BenchSystem, timeoutSeconds: number, log: (message: string) => void, startedAt = performance.now()): Promise<FoldWait> {
  const redis = createRedis(system.redisUrl, 'bench-fold-wait');
  await waitForRedis(redis);
  const journal = new CountJournal(redis, system.redisPrefix);
  const before = await foldProgress(redis, system.redisPrefix);
  let lastLog = startedAt;
  try {
    for (;;) {
      const left = await journal.oldestUnapplied();
      const seconds = (performance.now() - startedAt) / 1000;
      if (left.interval === null && left.folds === 0) return { finished: true, seconds, before, after: await foldProgress(redis, system.redisPrefix) };
      if (seconds >= timeoutSeconds) return { finished: false, seconds, before, after: await foldProgress(redis, system.redisPrefix) };
      if (performance.now() - lastLog >= 15_000) {
        lastLog = performance.now();
        const progress = await foldProgress(redis, system.redisPrefix);
        log(`   ${seconds.toFixed(0)} s: ${progress.openIntervals} intervals not claimed, ${progress.pending} folds claimed and not applied (the last claimed: ${progress.lastClaimed ?? 'none'})`);
      }
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  } finally {
    redis.disconnect();
  }
}

export interface PerEventData {
  /** Counted-once sets in Redis whose hour's window has ended (onceSetEnd), and all of them. */
  onceSetsPastWindow: number;
  onceSets: number;
  onceMembersPastWindow: number;
  /** Hours the folder's sweep still lists. */
  onceHoursListed: number;
  /** Documents of the per-event collections of the earlier version, null when the collection does not exist. */
  records: number | null;
  filteredClicks: number | null;
  totalsDocuments: number;
  totalsCollections: number;
  /** Days held by all the totals documents together: the grain-days folded. */
  totalsGrainDays: number;
}

/** Commands the store has answered so far, by name (`serverStatus.metrics.commands`, on MongoDB and the local store alike). */
export async function storeCommands(system: BenchSystem): Promise<Record<string, number>> {
  const connection = await connectMongo({ url: system.mongoUrl, dbName: 'admin' });
  try {
    const status = (await connection.db!.command({ serverStatus: 1 })) as { metrics?: { commands?: Record<string, { total?: number | { toNumber(): number } }> } };
    return Object.fromEntries(Object.entries(status.metrics?.commands ?? {}).map(([name, { total }]) => [name, typeof total === 'number' ? total : (total?.toNumber() ?? 0)]));
  } finally {
    await connection.close();
  }
}

export async function perEventData(system: BenchSystem): Promise<PerEventData> {
  const redis = createRedis(system.redisUrl, 'bench-per-event');
  await waitForRedis(redis);
  const keys = countKeys(system.redisPrefix);
  const data: PerEventData = { onceSetsPastWindow: 0, onceSets: 0, onceMembersPastWindow: 0, onceHoursListed: 0, records: null, filteredClicks: null, totalsDocuments: 0, totalsCollections: 0, totalsGrainDays: 0 };
  try {
    const now = Date.now();
    const base = `${keys.base}once:`;
    for await (const found of redis.scanStream({ match: `${base}*`, count: 1000 }) as AsyncIterable<string[]>) {
      for (const key of found) {
        const hour = Number(key.slice(key.lastIndexOf(':') + 1));
        data.onceSets += 1;
        if (onceSetEnd(hour) <= now) {
          data.onceSetsPastWindow += 1;
          data.onceMembersPastWindow += await redis.scard(key);
        }
      }
    }
    data.onceHoursListed = await redis.zcard(keys.onceHours);
  } finally {
    redis.disconnect();
  }
  // Counting a collection of hundreds of thousands of documents takes longer on FerretDB than a service's deadline.
  const connection = await connectMongo({ url: system.mongoUrl, dbName: system.dbOf('tracking'), operationTimeoutMS: 600_000 });
  try {
    const db = connection.db!;
    const names = new Set((await db.listCollections({}, { nameOnly: true }).toArray()).map((collection) => collection.name));
    if (names.has('records')) data.records = await db.collection('records').countDocuments({});
    if (names.has('filtered_clicks')) data.filteredClicks = await db.collection('filtered_clicks').countDocuments({});
    // One document per grain and day in `counts_days`; earlier versions kept one per grain and month in
    // `totals` (`totals_<nn>` were the shards of a layout before that).
    if (names.has('counts_days')) {
      data.totalsCollections = 1;
      data.totalsDocuments = data.totalsGrainDays = await db.collection('counts_days').estimatedDocumentCount();
    }
    const totals = [...names].filter((name) => /^totals(_\d+)?$/.test(name));
    data.totalsCollections += totals.length;
    for (const name of totals) {
      for await (const document of db.collection(name).find({}, { projection: { days: 1 }, timeoutMode: 'iteration' })) {
        data.totalsDocuments += 1;
        data.totalsGrainDays += typeof document.days === 'object' && document.days !== null ? Object.keys(document.days).length : 0;
      }
    }
  } finally {
    await connection.close();
  }
  return data;
}

export interface StatsTotals {
  adRequests: number;
  confirmedDeliveries: number;
  clickedLinks: number;
  days: unknown[];
}

export interface StatsTiming {
  /** Milliseconds of each sequential call. */
  samples: number[];
  p50: number;
  p95: number;
  /** Answers other than 200. */
  failures: number;
  last: StatsTotals | null;
}

/** `count` sequential GET /api/workspace/stats calls of one signed-in account, through the gateway. */
export async function timeStats(browser: Browser, query: string, count: number): Promise<StatsTiming> {
  const samples: number[] = [];
  let failures = 0;
  let last: StatsTotals | null = null;
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    const answer = await browser.call<StatsTotals>('GET', `/api/workspace/stats${query}`);
    samples.push(performance.now() - started);
    if (answer.status === 200) last = answer.body;
    else failures += 1;
  }
  return { samples, p50: percentile(samples, 50), p95: percentile(samples, 95), failures, last };
}
