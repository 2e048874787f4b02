/**
 * Redis gone back in time under traffic: restored from an older copy of its data (a backup, or a failover
 * to a replica that lagged), while counts keep coming and the folder keeps folding. The counting pipeline
 * of @pilot/counting runs in this process against a redis-server of the test's own (AOF, fsync always;
 * the machine's shared Redis is never touched) and the test's FerretDB.
 *
 * The older copy holds a fold sequence far behind what MongoDB has applied since, and one fold that was
 * claimed and then applied after the copy was taken; another test takes the copy while an interval is
 * open. Afterwards, the totals are exactly what MongoDB held when Redis went back plus every count
 * acknowledged after: a fold is numbered by its interval, so the old fold (or the interval claimed again)
 * adds nothing, and the intervals counted after the restore are new ones. What the older copy cannot hold (counts acknowledged after it and not folded when Redis
 * went) is lost, as with any restore; the test takes that from the figures, not from the pipeline.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '@pilot/platform';
import { OwnRedis, reservedPort, testInfra, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { CountJournal, CountRecorder, type CountedAllocation } from '../../packages/counting/src';
import { COUNT_FOLDING, CountFolder, TotalsStore } from '../../packages/counting/src/totals';
import { connectMongo, type Connection } from '../../packages/storage/src';
import { createRedis, waitForRedis, type Redis } from '../../packages/platform/src';
import { observe } from './support/traffic';

const CAMPAIGNS = [11, 12, 13];
const PUBLISHERS = [21, 22, 23, 24];
const GRAINS = ['all', ...CAMPAIGNS.map((id) => `c:${id}`), ...PUBLISHERS.map((id) => `p:${id}`)];
const KINDS = ['adRequests', 'confirmedDeliveries'] as const;
type Figures = Record<string, { adRequests: number; confirmedDeliveries: number }>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Facts counted by a few workers, each call retried with the same ids until it is answered. */
class Traffic {
  private paused = true;
  private stopped = false;
  private next = 0;
  private workers: Promise<void>[] = [];
  private busy = 0;
  /** Per fact and kind: when its count was acknowledged. */
  readonly acknowledged: Array<{ grains: string[]; kind: (typeof KINDS)[number]; at: number }> = [];
  failures = 0;

  constructor(private readonly recorder: CountRecorder) {}

  start(workers = 3): void {
    this.paused = false;
    this.workers = Array.from({ length: workers }, () => this.work());
  }

  resume(): void {
    this.paused = false;
  }

  /** Stops taking new facts and waits until the ones under way are answered. */
  async pause(): Promise<void> {
    this.paused = true;
    await waitFor(() => this.busy === 0, { timeoutMs: 30_000, intervalMs: 5, message: 'the calls under way answered' });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.workers);
  }

  private async work(): Promise<void> {
    while (!this.stopped) {
      if (this.paused) {
        await sleep(5);
        continue;
      }
      this.busy += 1;
      try {
        await this.countOne(this.next++);
      } finally {
        this.busy -= 1;
      }
      await sleep(2);
    }
  }

  private async countOne(i: number): Promise<void> {
    const campaignId = CAMPAIGNS[i % CAMPAIGNS.length]!;
    const publisherId = PUBLISHERS[i % PUBLISHERS.length]!;
    const allocation: CountedAllocation = { campaignId, publisherId, campaignOwnerAccountId: '9901', publisherOwnerAccountId: '9902', allocatedAt: new Date() };
    const grains = ['all', `c:${campaignId}`, `p:${publisherId}`];
    const id = `restore-${i}`;
    await this.untilAnswered(() => this.recorder.countAdRequest(publisherId, { points: 1e9, windowSeconds: 60 }, { ...allocation, allocationId: id }, new Date()), 'adRequests', grains);
    if (i % 3 === 0) await this.untilAnswered(() => this.recorder.countOnce('confirmedDeliveries', id, allocation, new Date(), `attempt-${id}`), 'confirmedDeliveries', grains);
  }

  private async untilAnswered(call: () => Promise<unknown>, kind: (typeof KINDS)[number], grains: string[]): Promise<void> {
    for (;;) {
      try {
        const answer = await call();
        if (answer === false) throw new Error(`a fact counted already: ${kind}`);
        this.acknowledged.push({ grains, kind, at: Date.now() });
        return;
      } catch (error) {
        if ((error as Error).message.startsWith('a fact counted already')) throw error;
        this.failures += 1;
        await sleep(20);
      }
    }
  }

  /** What the acknowledged counts add up to per grain, of those acknowledged after `since` (ms). */
  figuresSince(since: number): Figures {
    const figures = emptyFigures();
    for (const fact of this.acknowledged) {
      if (fact.at <= since) continue;
      for (const grain of fact.grains) figures[grain]![fact.kind] += 1;
    }
    return figures;
  }
}

function emptyFigures(): Figures {
  return Object.fromEntries(GRAINS.map((grain) => [grain, { adRequests: 0, confirmedDeliveries: 0 }]));
}

describe('Redis gone back to an older copy of its data under traffic (counting)', function () {
  this.timeout(120_000);
  const infra = testInfra();
  const logger = createLogger({ service: 'redis-restore-test', level: 'silent' });
  const snapshot = mkdtempSync(join(tmpdir(), 'pilot-redis-snapshot-'));
  let own: OwnRedis | undefined;
  let redis: Redis | undefined;
  let mongo: Connection | undefined;
  const folders: CountFolder[] = [];

  before(async () => {
    own = new OwnRedis(await reservedPort());
    await own.start();
    redis = createRedis(own.url, 'redis-restore-test');
    await waitForRedis(redis);
    mongo = await connectMongo({ url: infra.mongoUrl, dbName: `redis_restore_${infra.runId}` });
  });

  after(async function () {
    this.timeout(60_000);
    if (own && !own.running) await own.start().catch(() => undefined);
    for (const folder of folders) await folder.stop();
    redis?.disconnect();
    await mongo?.db?.dropDatabase().catch(() => undefined);
    await mongo?.close();
    await own?.remove();
    rmSync(snapshot, { recursive: true, force: true });
  });

  it('applies an interval once when Redis goes back to a copy taken while the interval was open', async () => {
    if (!own || !redis || !mongo) throw new Error('not started');
    const server = own;
    const prefix = `${infra.redisPrefix}open-`;
    // A pipeline of its own: its Redis prefix and its database, as a service has.
    const ownDb = await connectMongo({ url: infra.mongoUrl, dbName: `redis_restore_open_${infra.runId}` });
    const totals = new TotalsStore(ownDb, 5000);
    await totals.ensureIndexes();
    const journal = new CountJournal(redis, prefix);
    // Intervals of an hour: the one counted into stays open across the copy.
    const recorder = new CountRecorder(redis, prefix, 1000, 3_600_000);
    const folder = new CountFolder({ journal, totals, clock: { now: () => new Date() }, logger, tickMs: 0, ...COUNT_FOLDING });
    folders.push(folder);
    const allocation: CountedAllocation = { campaignId: 31, publisherId: 41, campaignOwnerAccountId: '9911', publisherOwnerAccountId: '9912', allocatedAt: new Date() };
    const count = async (from: number, to: number) => {
      for (let i = from; i < to; i += 1) await recorder.countAdRequest(41, { points: 1e9, windowSeconds: 60 }, { ...allocation, allocationId: `open-${i}` }, new Date());
    };
    const figure = async () => (await totals.readRange(['c:31'], {})).get('c:31')?.days[allocation.allocatedAt.toISOString().slice(0, 10)]?.adRequests;

    await count(0, 5);
    const copy = mkdtempSync(join(tmpdir(), 'pilot-redis-open-copy-'));
    try {
      await server.stop('SIGTERM');
      cpSync(server.dir, copy, { recursive: true });
      await server.start();
      await waitForRedis(redis);
      await count(5, 8);
      await folder.foldNow(true);
      expect(await figure(), 'the interval folded').to.equal(8);

      // Redis goes back to the copy: the interval is open again, with the five counts it held then.
      await server.stop('SIGKILL');
      for (const entry of readdirSync(server.dir)) rmSync(join(server.dir, entry), { recursive: true, force: true });
      cpSync(copy, server.dir, { recursive: true });
      await server.start();
      await waitForRedis(redis);
      expect(await journal.closedIntervals(new Date(8.64e15), 0), 'the interval open again').to.have.length(1);
      await folder.foldNow(true);
      await folder.stop();
      expect(await journal.pendingFolds(), 'nothing left to fold').to.deep.equal([]);
      expect(await figure(), 'the interval applied once').to.equal(8);
    } finally {
      rmSync(copy, { recursive: true, force: true });
      await ownDb.db?.dropDatabase().catch(() => undefined);
      await ownDb.close();
    }
  });

  it('applies each interval of the older Redis once, the one claimed in the copy included: the totals stay exact', async () => {
    if (!own || !redis || !mongo) throw new Error('not started');
    const server = own;
    const prefix = infra.redisPrefix;
    const totals = new TotalsStore(mongo, 5000);
    await totals.ensureIndexes();
    const journal = new CountJournal(redis, prefix);
    const recorder = new CountRecorder(redis, prefix, 1000, 300);
    const folder = () => {
      const made = new CountFolder({ journal, totals, clock: { now: () => new Date() }, logger, tickMs: 100, ...COUNT_FOLDING, graceMs: 100 });
      folders.push(made);
      return made;
    };
    const stored = async (): Promise<Figures> => {
      const figures = emptyFigures();
      for (const [grain, { days }] of await totals.readRange(GRAINS, {})) {
        for (const counts of Object.values(days)) for (const kind of KINDS) figures[grain]![kind] += counts[kind] ?? 0;
      }
      return figures;
    };
    const traffic = new Traffic(recorder);

    // Counting and folding for a while.
    const first = folder();
    first.start();
    traffic.start();
    await waitFor(() => traffic.acknowledged.length >= 300, { timeoutMs: 30_000, message: 'traffic before the copy' });

    // The copy: everything so far folded, then a fold claimed and not applied yet; Redis stopped to copy its files.
    await traffic.pause();
    await first.stop();
    await first.foldNow(true);
    await first.stop();
    expect(await journal.closedIntervals(new Date(8.64e15), 0), 'nothing left unclaimed').to.deep.equal([]);
    traffic.resume();
    const acknowledged = traffic.acknowledged.length;
    await waitFor(() => traffic.acknowledged.length >= acknowledged + 30, { timeoutMs: 30_000, message: 'counts for the claimed fold' });
    await traffic.pause();
    for (const interval of await journal.closedIntervals(new Date(8.64e15), 0)) await journal.claim(interval);
    const [claimedInCopy] = await journal.pendingFolds();
    const sequenceInCopy = Number(await redis.get(journal.keys.foldSequence));
    await server.stop('SIGTERM');
    cpSync(server.dir, snapshot, { recursive: true });
    await server.start();
    await waitForRedis(redis);

    // Counting and folding go on (the claimed fold applied among others), the sequence far beyond the copy's.
    const second = folder();
    second.start();
    traffic.resume();
    // The highest interval the network's day documents hold: what the folder applied.
    const lastApplied = async () => (await mongo!.db!.collection('counts_days').find({ level: 'network' }).sort({ lastFold: -1 }).limit(1).next())?.lastFold ?? 0;
    await waitFor(async () => (await lastApplied()) >= sequenceInCopy + 15 && traffic.acknowledged.length >= acknowledged + 600, {
      timeoutMs: 60_000,
      message: 'folds applied beyond the copy',
    });

    // Under traffic: Redis killed and started again from the older copy.
    await server.stop('SIGKILL');
    // The folder's pass under way ends at its next Redis call: what MongoDB holds then is what survives.
    await second.foldNow().catch(() => undefined);
    const held = await stored();
    const appliedWhenKilled = await lastApplied();
    for (const entry of readdirSync(server.dir)) rmSync(join(server.dir, entry), { recursive: true, force: true });
    cpSync(snapshot, server.dir, { recursive: true });
    // Every answer from here on comes from the restored server.
    const restartedAt = Date.now();
    await server.start();
    await waitForRedis(redis);
    const back = Date.now();
    expect(Number(await redis.get(journal.keys.foldSequence)), 'the sequence of the older copy').to.equal(sequenceInCopy);
    expect(await journal.pendingFolds(), 'the fold claimed in the copy').to.include(claimedInCopy);

    // Traffic and folding go on against the older Redis.
    const answeredBack = traffic.acknowledged.length;
    await waitFor(() => traffic.acknowledged.length >= answeredBack + 300, { timeoutMs: 60_000, message: 'traffic after the restore' });
    await traffic.stop();
    await second.stop();
    const last = folder();
    await waitFor(
      async () => {
        await last.foldNow(true);
        return (await journal.pendingFolds()).length === 0 && (await journal.closedIntervals(new Date(8.64e15), 0)).length === 0;
      },
      { timeoutMs: 30_000, intervalMs: 100, message: 'everything folded' },
    );
    const firstAfter = Number(await redis.get(journal.keys.foldSequence));

    const after = traffic.figuresSince(restartedAt);
    const expected = Object.fromEntries(
      GRAINS.map((grain) => [grain, { adRequests: held[grain]!.adRequests + after[grain]!.adRequests, confirmedDeliveries: held[grain]!.confirmedDeliveries + after[grain]!.confirmedDeliveries }]),
    );
    observe('Redis restore: facts', {
      acknowledged: traffic.acknowledged.length,
      failedCalls: traffic.failures,
      startMs: back - restartedAt,
      sequenceInCopy,
      appliedWhenKilled,
      sequenceAtTheEnd: firstAfter,
      heldWhenKilled: held.all,
      acknowledgedAfter: after.all,
    });
    expect(await stored()).to.deep.equal(expected);
  });
});
