/**
 * The count folder killed in the middle of a fold. The system runs in this process
 * behind a real gateway, except tracking: one child process at a time (the only replica, folding every
 * 200 ms), so it can be killed for real. Under continuous traffic (ads from 6 publishers over 4
 * campaigns, their confirmations and clicks, about 40 grains per 5-second interval), the test watches the
 * pipeline in Redis and sends SIGKILL the moment the folder has claimed a fold and is applying it to
 * MongoDB, starts another tracking process, and does it again to that one while it takes over (it
 * re-applies the fold the first one left half-done). Afterwards the totals must be exactly what the load
 * generator counted, through the stats API and in MongoDB alone once everything is folded.
 */
import { reservedPort, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { countKeys, type CountKeys } from '../../packages/counting/src';
import { TotalsStore } from '../../packages/counting/src/totals';
import { connectMongo, type Connection } from '../../packages/storage/src';
import { createRedis, waitForRedis, type Redis } from '../../packages/platform/src';
import { signedIn, type Browser, type PublisherServer } from '../e2e/support/clients';
import { activeCampaign, approvedPublisher } from '../e2e/support/scenario';
import { ADMIN_ID, startSystem, type System } from '../e2e/support/system';
import { CountingLoad } from './support/counting-load';
import { ChildService } from './support/processes';
import { expectTotalsSettle, observe, type Totals } from './support/traffic';

const CAMPAIGNS = 4;
const PUBLISHERS = 6;
const KILLS = 2;
const ADVERTISER = '9701';
const PUBLISHER_OWNER = '9702';

interface Kill {
  /** Folds claimed and not applied when the folder died: > 0 means it died in the middle of folding. */
  pendingFolds: number;
  /** Of the oldest of them: its grains, and how many of their MongoDB documents had it applied already. */
  fold?: { seq: number; grains: number; inMongo: number };
  /** From the kill until the next tracking process answered /readyz. */
  readyAfterMs?: number;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('tracking killed in the middle of folding counts', function () {
  this.timeout(150_000);
  let system: System | undefined;
  let tracking: ChildService | undefined;
  let redis: Redis | undefined;
  let mongo: Connection | undefined;
  let keys: CountKeys;
  let admin: Browser;
  let advertiser: Browser;

  before(async function () {
    this.timeout(120_000);
    const port = await reservedPort();
    // One-second intervals (60 s by default), so that folds come often enough to be caught halfway.
    const fast = { COUNT_INTERVAL_MS: '1000' };
    system = await startSystem({ replicas: { tracking: 0 }, external: { tracking: [`http://127.0.0.1:${port}`] }, settings: { allocation: fast } });
    const env: NodeJS.ProcessEnv = { ...system.envFor('tracking', port), ...fast, COUNT_FOLD_INTERVAL_MS: '200' };
    tracking = new ChildService('tracking', port, env);
    await tracking.start();
    redis = createRedis(system.infra.redisUrl, 'fold-kill-test');
    await waitForRedis(redis);
    keys = countKeys(system.infra.redisPrefix);
    mongo = await connectMongo({ url: system.infra.mongoUrl, dbName: env.MONGO_DB ?? '' });
    admin = await signedIn(system, ADMIN_ID);
    advertiser = await signedIn(system, ADVERTISER);
  });

  after(async function () {
    this.timeout(60_000);
    await tracking?.ensureStopped();
    await system?.stop();
    redis?.disconnect();
    await mongo?.close();
  });

  function totals(): TotalsStore {
    if (!mongo) throw new Error('no MongoDB');
    return new TotalsStore(mongo, 10_000);
  }

  /**
   * Waits until a folder other than `previousHolder` holds the lease with a fold claimed and not yet
   * applied, lets it go on for 0-20 ms, and kills the process with SIGKILL. Returns the lease holder it
   * killed and what it left behind.
   */
  async function killWhileFolding(child: ChildService, previousHolder: string | null): Promise<{ holder: string; kill: Kill }> {
    const store = redis as Redis;
    const holder = await waitFor(
      async () => {
        const [lease, pending] = await Promise.all([leaseHolder(), store.zcard(keys.pendingFolds)]);
        return lease !== null && lease !== previousHolder && pending > 0 ? lease : null;
      },
      { timeoutMs: 40_000, intervalMs: 2, message: 'a folder applying a fold' },
    );
    await sleep(Math.floor(Math.random() * 20));
    await child.signal('SIGKILL');
    const pending = (await store.zrange(keys.pendingFolds, 0, -1)).map(Number);
    const seq = pending[0];
    if (seq === undefined) return { holder, kill: { pendingFolds: 0 } };
    const grains = await store.smembers(`${keys.foldPrefix(seq)}grains`);
    const stored = await totals().readRange(grains, {});
    const inMongo = [...stored.values()].filter((grain) => Object.values(grain.lastFolds).some((lastFold) => lastFold >= seq)).length;
    return { holder, kill: { pendingFolds: pending.length, fold: { seq, grains: grains.length, inMongo } } };
  }

  /** The folder holding the lease (kept in MongoDB beside the folder state), or null when none does. */
  async function leaseHolder(): Promise<string | null> {
    const lease = await mongo?.db?.collection<{ _id: string; holder: string; until: Date }>('totals_folder').findOne({ _id: 'lease' });
    return lease && lease.until.getTime() > Date.now() ? lease.holder : null;
  }

  /** The counts MongoDB's documents of `grain` hold, over all days. */
  async function foldedTotals(grain: string): Promise<Totals> {
    const document = (await totals().readRange([grain], {})).get(grain);
    const sum: Totals = { adRequests: 0, confirmedDeliveries: 0, clickedLinks: 0 };
    for (const day of Object.values(document?.days ?? {})) {
      for (const kind of Object.keys(sum) as (keyof Totals)[]) sum[kind] += day[kind] ?? 0;
    }
    return sum;
  }

  it('SIGKILL while a fold is being applied, twice, under traffic: totals exactly what was answered, nothing lost or doubled', async () => {
    if (!system || !tracking || !redis) throw new Error('not started');
    const running = system;
    const publisherOwner = await signedIn(running, PUBLISHER_OWNER);
    const [, publishers] = await Promise.all([
      Promise.all(Array.from({ length: CAMPAIGNS }, () => activeCampaign(advertiser, admin, { language: 'fi' }))),
      Promise.all(Array.from({ length: PUBLISHERS }, () => approvedPublisher(running, publisherOwner, admin))),
    ]);
    const servers: PublisherServer[] = publishers.map(({ server }) => server);

    // About 6 ad requests a second (each publisher under its 60 per minute), each confirmed, every second
    // one clicked.
    const load = new CountingLoad(servers, 'fi', { loops: 2, pauseMs: 330 });
    const kills: Kill[] = [];
    const startedAt = Date.now();
    load.start();
    try {
      let holder: string | null = null;
      for (let k = 0; k < KILLS; k += 1) {
        const killed = await killWhileFolding(tracking, holder);
        holder = killed.holder;
        kills.push(killed.kill);
        // Another tracking process (same port, so the gateway finds it). It gets the folder lease once the
        // dead one's has run out (15 s; its start waits for it, so it answers only then) and applies what
        // was left, fold by fold; confirmations and clicks meanwhile are refused (502) and retried.
        const killedAt = Date.now();
        await tracking.start();
        killed.kill.readyAfterMs = Date.now() - killedAt;
      }
      // Traffic goes on after the last restart (about two seconds of it).
      const answersBefore = load.adAnswers.length;
      await waitFor(() => load.adAnswers.length >= answersBefore + 12, { timeoutMs: 30_000, message: 'ad traffic after the last restart' });
    } finally {
      await load.stop();
      if (!tracking.running) await tracking.start();
    }
    await load.finish();
    const expected = load.expected();
    observe('folder kills', kills);
    observe('fold kill: ad answers', load.adStatuses());
    observe('fold kill: confirmation answers', load.statusesOf('confirmations'));
    observe('fold kill: click answers', load.statusesOf('clicks'));
    observe('fold kill: expected totals', { ...expected, firstConfirmations: load.firstConfirmations(), firstLost: load.firstLost().length });

    // The folder was caught with a fold claimed and not applied at least once (the moment is random).
    expect(kills.filter((kill) => kill.pendingFolds > 0).length, JSON.stringify(kills)).to.be.at.least(1);
    expect(expected.adRequests).to.be.greaterThan(100);

    // Through the stats API (MongoDB plus what Redis holds unfolded): exact, for both owners.
    await expectTotalsSettle(publisherOwner, expected, 30_000);
    await expectTotalsSettle(advertiser, expected, 10_000);
    // Every first confirmation answered as such once; one only in flight at a kill may have lost its answer.
    load.expectConfirmationsConsistent();
    expect(load.firstConfirmations()).to.equal(expected.confirmedDeliveries - load.firstLost().length);

    // Once the last process has folded everything, MongoDB alone holds exactly the same.
    const store = redis;
    await waitFor(async () => (await store.zcard(keys.openIntervals)) === 0 && (await store.zcard(keys.pendingFolds)) === 0, {
      timeoutMs: 60_000,
      intervalMs: 200,
      message: 'every interval folded into MongoDB',
    }).catch(async (error: unknown) => {
      const state = {
        now: Date.now(),
        openIntervals: await store.zrange(keys.openIntervals, 0, -1, 'WITHSCORES'),
        pendingFolds: await store.zrange(keys.pendingFolds, 0, -1),
        lease: await leaseHolder(),
        leaseDocument: await mongo?.db?.collection('totals_folder').findOne({ _id: 'lease' as never }),
      };
      throw new Error(`${(error as Error).message}; Redis: ${JSON.stringify(state)}; tracking: ${tracking?.output.slice(-3000)}`);
    });
    expect(await foldedTotals(`po:${PUBLISHER_OWNER}`)).to.deep.equal(expected);
    expect(await foldedTotals(`co:${ADVERTISER}`)).to.deep.equal(expected);
    observe('fold kill: seconds of the whole test body', Math.round((Date.now() - startedAt) / 1000));
  });
});
