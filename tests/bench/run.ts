/**
 * The benchmark of the hot paths (issue 11). Prints its figures; asserts nothing, and is not part of the
 * test command. Run it with `bash scripts/bench.sh` (which starts FerretDB for it); docs/performance.md
 * says what it measures and how.
 *
 *   1. baseline: a gateway in front of a trivial upstream;
 *   2. ad endpoint, delivery confirmation, click redirect, each as a ratio of the baseline;
 *   3. selection scaling: ad requests/s with 10 and with 10,000 active campaigns;
 *   4. propagation: activation -> selectable, pause -> no longer selected, over 100 trials;
 *   5. resident memory of allocation with 10,000 active campaigns.
 *
 * Settings (environment): MONGO_URL (required), BENCH_DURATION (s, 10), BENCH_WARMUP (s, 3),
 * BENCH_CONNECTIONS (16), BENCH_TRIALS (100), BENCH_PUBLISHERS (200), BENCH_CAMPAIGNS (10000).
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { connectMongo } from '../../packages/mongo/src';
import { createRedis, waitForRedis } from '../../packages/redis/src';
import { measure, percentile, type LoadSettings, type Phase, type PhaseResult } from './load';
import { cleanUp } from './cleanup';
import { infrastructurePids } from './cpu';
import { ADMIN_ID, ROOT, startBenchSystem, type BenchSystem } from './system';
import { activeCampaign, approvedPublisher, inParallel, signedIn, type Browser, type PublisherKey } from './workspace';

const settings: LoadSettings = {
  connections: Number(process.env.BENCH_CONNECTIONS ?? 16),
  durationSeconds: Number(process.env.BENCH_DURATION ?? 10),
  warmupSeconds: Number(process.env.BENCH_WARMUP ?? 3),
};
const TRIALS = Number(process.env.BENCH_TRIALS ?? 100);
const PUBLISHERS = Number(process.env.BENCH_PUBLISHERS ?? 200);
const CAMPAIGNS = Number(process.env.BENCH_CAMPAIGNS ?? 10_000);
const FEW_CAMPAIGNS = 10;
const BACKGROUND_FIRST_ID = 10_000_000;
/** Publisher owner accounts (publishers spread over them) and campaign owner accounts. */
const PUBLISHER_OWNERS = ['2001', '2002', '2003', '2004'];
const CAMPAIGN_OWNER = '3001';
/** The propagation campaign's language: no other campaign has it (and none has `all`). */
const PROPAGATION_LANGUAGE = 'fi';
const BACKGROUND_LANGUAGES = ['en', 'tr', 'ru', 'ar', 'zh', 'es'];
const TRIAL_DEADLINE_MS = 10_000;

function log(message: string): void {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

interface Delivery {
  key: string;
  token: string;
  clickPath: string;
}

class Rotation<T> {
  private next = 0;
  constructor(private readonly items: T[]) {
    if (items.length === 0) throw new Error('nothing to rotate over');
  }
  take(): T {
    const item = this.items[this.next % this.items.length] as T;
    this.next += 1;
    return item;
  }
}

/** Ad requests from every publisher in turn; answered ads are kept for the confirmation and click phases. */
function adPhase(system: BenchSystem, name: string, keys: PublisherKey[], deliveries: Delivery[] | null): Phase {
  const rotation = new Rotation(keys);
  return {
    name,
    url: system.baseUrl,
    expected: [200, 204],
    next() {
      return { method: 'GET', path: '/api/network/ad?language=en', headers: { authorization: `Bearer ${rotation.take().key}` } };
    },
    onResponse(status, body) {
      if (deliveries === null || status !== 200) return;
      const ad = JSON.parse(body) as { delivery_token: string; click_url: string };
      deliveries.push({ key: '', token: ad.delivery_token, clickPath: new URL(ad.click_url).pathname });
    },
  };
}

/** The publisher a token was issued to (packages/tokens: a binary payload, publisher id at byte 21). */
function publisherOfToken(token: string): number {
  return Buffer.from(token.split('.')[0] ?? '', 'base64url').readUInt32BE(21);
}

function baselinePhase(system: BenchSystem, keys: PublisherKey[]): Phase {
  const rotation = new Rotation(keys);
  return {
    name: 'baseline',
    url: system.baselineUrl,
    expected: [200],
    next() {
      return { method: 'GET', path: '/bench/ping?language=en', headers: { authorization: `Bearer ${rotation.take().key}` } };
    },
  };
}

function confirmPhase(system: BenchSystem, deliveries: Delivery[]): Phase {
  const rotation = new Rotation(deliveries);
  return {
    name: 'confirmation',
    url: system.baseUrl,
    expected: [200],
    next() {
      const delivery = rotation.take();
      return {
        method: 'POST',
        path: '/api/network/delivery',
        headers: { authorization: `Bearer ${delivery.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ token: delivery.token }),
      };
    },
  };
}

function clickPhase(system: BenchSystem, deliveries: Delivery[]): Phase {
  const rotation = new Rotation(deliveries);
  return {
    name: 'click',
    url: system.baseUrl,
    expected: [302],
    next() {
      return {
        method: 'GET',
        path: rotation.take().clickPath,
        headers: { 'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36' },
      };
    },
  };
}

/** Resets every publisher's ad request counter every second while `work` runs (see docs/performance.md). */
async function withLimitResets<T>(system: BenchSystem, keys: PublisherKey[], work: () => Promise<T>): Promise<T> {
  const redis = createRedis(system.redisUrl, 'bench');
  await waitForRedis(redis);
  const counters = keys.map((publisher) => `${system.redisPrefix}ratelimit:ad:${publisher.publisherId}`);
  const reset = () => redis.del(...counters).catch(() => undefined);
  await reset();
  const timer = setInterval(() => void reset(), 1000);
  try {
    return await work();
  } finally {
    clearInterval(timer);
    redis.disconnect();
  }
}

/** The campaign service's own record of an active campaign, repeated under new ids (see docs/performance.md). */
async function addActiveCampaigns(system: BenchSystem, count: number): Promise<void> {
  const connection = await connectMongo({ url: system.mongoUrl, dbName: system.dbOf('campaign') });
  try {
    const campaigns = connection.db!.collection('campaigns');
    const model = await campaigns.findOne({ status: 'active', language: 'en' });
    if (!model) throw new Error('no active campaign to model the others on');
    const firstId = BACKGROUND_FIRST_ID;
    for (let start = 0; start < count; start += 1000) {
      const batch = Array.from({ length: Math.min(1000, count - start) }, (_, offset) => {
        const i = start + offset;
        const id = firstId + i;
        return {
          ...model,
          _id: id,
          campaignId: id,
          ownerAccountId: String(40_000 + (i % 100)),
          name: `Background campaign ${i}`,
          format: i % 4 === 3 ? 'channel' : 'bot',
          language: BACKGROUND_LANGUAGES[i % BACKGROUND_LANGUAGES.length],
          destinationUrl: `https://advertiser.example/landing?b=${i}`,
        };
      });
      await campaigns.insertMany(batch as never[], { ordered: false });
    }
  } finally {
    await connection.close();
  }
}

/** Removes what addActiveCampaigns copied (ids from 10,000,000 up). */
async function removeBackgroundCampaigns(system: BenchSystem): Promise<void> {
  const connection = await connectMongo({ url: system.mongoUrl, dbName: system.dbOf('campaign') });
  try {
    await connection.db!.collection('campaigns').deleteMany({ _id: { $gte: BACKGROUND_FIRST_ID } as never });
  } finally {
    await connection.close();
  }
}

async function propagation(system: BenchSystem, admin: Browser, campaignId: number, keys: PublisherKey[]) {
  const rotation = new Rotation(keys);
  const poll = async (): Promise<{ status: number; campaignId: number | null }> => {
    const response = await fetch(`${system.baseUrl}/api/network/ad?language=${PROPAGATION_LANGUAGE}`, {
      headers: { authorization: `Bearer ${rotation.take().key}` },
    });
    const text = await response.text();
    return { status: response.status, campaignId: response.status === 200 ? (JSON.parse(text) as { campaign_id: number }).campaign_id : null };
  };
  /**
   * When (performance.now()) a poll first answers as `wanted` says. Two pollers, each pausing 5 ms between
   * polls, so the polling itself does not load the system much (each answered ad is an allocation).
   */
  const until = async (t0: number, wanted: (answer: { status: number; campaignId: number | null }) => boolean): Promise<number> => {
    let seenAt = 0;
    const deadline = t0 + TRIAL_DEADLINE_MS;
    await Promise.all(
      Array.from({ length: 2 }, async (_, poller) => {
        if (poller === 1) await new Promise((resolve) => setTimeout(resolve, 2));
        while (seenAt === 0 && performance.now() < deadline) {
          const answer = await poll();
          if (seenAt === 0 && wanted(answer)) seenAt = performance.now();
          else await new Promise((resolve) => setTimeout(resolve, 5));
        }
      }),
    );
    // Not seen by the deadline (e.g. the broker restarted under the trial): counted, and kept as the deadline.
    if (seenAt === 0) {
      timedOut += 1;
      return deadline;
    }
    return seenAt;
  };
  let timedOut = 0;
  const others: Record<string, number> = {};
  const note = (answer: { status: number }) => {
    if (answer.status !== 200 && answer.status !== 204) others[answer.status] = (others[answer.status] ?? 0) + 1;
  };
  /** One change: from sending the call, from its 200, and the call itself. */
  const trial = async (action: 'activate' | 'pause', wanted: (answer: { status: number; campaignId: number | null }) => boolean) => {
    const t0 = performance.now();
    const answered = admin.must(200, 'POST', `/api/workspace/campaigns/${campaignId}/${action}`).then(() => performance.now());
    const seenAt = await until(t0, (answer) => (note(answer), wanted(answer)));
    const answeredAt = await answered;
    await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 30));
    return { fromSend: seenAt - t0, fromAnswer: Math.max(0, seenAt - answeredAt), call: answeredAt - t0 };
  };
  const activation: { fromSend: number; fromAnswer: number; call: number }[] = [];
  const pause: { fromSend: number; fromAnswer: number; call: number }[] = [];
  for (let round = 0; round < TRIALS; round += 1) {
    activation.push(await trial('activate', (answer) => answer.campaignId === campaignId));
    pause.push(await trial('pause', (answer) => answer.status === 204));
  }
  return { activation, pause, others, timedOut };
}

interface Check {
  figure: string;
  value: string;
  target: string;
  pass: boolean;
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd()).join('\n');
}

const ms = (value: number) => `${value.toFixed(1)} ms`;
const fixed = (value: number, digits = 2) => value.toFixed(digits);

async function main(): Promise<void> {
  const mongoUrl = process.env.MONGO_URL;
  if (!mongoUrl) throw new Error('MONGO_URL is required (scripts/bench.sh starts a FerretDB for the benchmark)');
  const startedAt = Date.now();
  const loadBefore = os.loadavg();
  log('starting every service as its own process');
  const system = await startBenchSystem({ mongoUrl });
  const interrupted = () => {
    log('interrupted: stopping the system and removing its databases, queues and keys');
    void system
      .stop()
      .then(() => cleanUp(system))
      .finally(() => process.exit(130));
  };
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  log(`system up at ${system.baseUrl} (run ${system.runId}); logs in .data/bench/${system.runId}/`);
  try {
    // Set-up through the public API.
    const admin = await signedIn(system, ADMIN_ID);
    const owners = await Promise.all(PUBLISHER_OWNERS.map((id) => signedIn(system, id)));
    const advertiser = await signedIn(system, CAMPAIGN_OWNER);
    log(`creating ${PUBLISHERS} approved publishers and ${FEW_CAMPAIGNS} active campaigns through the gateway`);
    const keys = await inParallel(Array.from({ length: PUBLISHERS }, (_, i) => i), 6, (i) =>
      approvedPublisher(owners[i % owners.length] as Browser, admin, `@bench_${i}_bot`),
    );
    await inParallel(Array.from({ length: FEW_CAMPAIGNS }, (_, i) => i), 4, (i) => activeCampaign(advertiser, admin, i, 'en'));
    // The propagation campaign: approved, activated and paused by the trials.
    const propagationCampaign = await activeCampaign(advertiser, admin, 999_999, PROPAGATION_LANGUAGE);
    await admin.must(200, 'POST', `/api/workspace/campaigns/${propagationCampaign}/pause`);
    const keyOf = new Map(keys.map((publisher) => [publisher.publisherId, publisher.key]));
    log(`set-up done in ${((Date.now() - startedAt) / 1000).toFixed(0)} s`);

    const ferretPid = Number(process.env.BENCH_FERRETDB_PID ?? '') || null;
    const pids = () => ({ ...system.pids(), ...infrastructurePids(ferretPid) });
    const results: PhaseResult[] = [];
    const deliveries: Delivery[] = [];
    log('1. baseline');
    const baseline = await measure(baselinePhase(system, keys), settings, pids);
    results.push(baseline);
    log('2. ad endpoint (10 active campaigns)');
    const ad = await withLimitResets(system, keys, () => measure(adPhase(system, 'ad', keys, deliveries), settings, pids));
    results.push(ad);
    for (const delivery of deliveries) delivery.key = keyOf.get(publisherOfToken(delivery.token)) ?? '';
    log(`   ${deliveries.length} ads answered; confirming and clicking them`);
    const confirmation = await measure(confirmPhase(system, deliveries), settings, pids);
    results.push(confirmation);
    const click = await measure(clickPhase(system, deliveries), settings, pids);
    results.push(click);

    // The scaling pair runs in the order 10, 10,000, 10,000, 10 (each set on a freshly restarted allocation
    // after a 10 s warm-up) and compares the sums: what drifts on a shared machine during the minutes it
    // takes cancels out, and a cold process or the database settling after the bulk insert of campaigns
    // weighs on both sides alike.
    const scalingSettings = { ...settings, warmupSeconds: Math.max(settings.warmupSeconds, 10) };
    const scalingPhase = async (label: string) => {
      const result = await withLimitResets(system, keys, () => measure(adPhase(system, label, keys, null), scalingSettings, pids));
      results.push(result);
      return result;
    };
    const restartAllocation = async () => {
      const started = performance.now();
      await system.restart('allocation');
      const loaded = await fetch(`${system.baseUrl}/readyz`);
      if (!loaded.ok) throw new Error(`gateway not ready after the restart: ${await loaded.text()}`);
      return (performance.now() - started) / 1000;
    };
    log(`3. selection scaling: ${FEW_CAMPAIGNS}, ${CAMPAIGNS}, ${CAMPAIGNS}, ${FEW_CAMPAIGNS} active campaigns (${scalingSettings.warmupSeconds} s warm-up each)`);
    await restartAllocation();
    const fewFirst = await scalingPhase(`ad, ${FEW_CAMPAIGNS} campaigns (1)`);
    const rssFew = system.rssOf('allocation');
    log(`   adding ${CAMPAIGNS - FEW_CAMPAIGNS} active campaigns and restarting allocation (it loads the snapshot at start)`);
    await addActiveCampaigns(system, CAMPAIGNS - FEW_CAMPAIGNS);
    const restartSeconds = await restartAllocation();
    log(`   allocation ready again after ${restartSeconds.toFixed(1)} s (most of it the snapshot of ${CAMPAIGNS} campaigns)`);
    const manyFirst = await scalingPhase(`ad, ${CAMPAIGNS} campaigns (1)`);
    const manySecond = await scalingPhase(`ad, ${CAMPAIGNS} campaigns (2)`);
    const rssMany = system.rssOf('allocation');
    log(`   removing them again and restarting allocation`);
    await removeBackgroundCampaigns(system);
    await restartAllocation();
    const fewSecond = await scalingPhase(`ad, ${FEW_CAMPAIGNS} campaigns (2)`);
    log(`   adding the ${CAMPAIGNS - FEW_CAMPAIGNS} again for the propagation trials`);
    await addActiveCampaigns(system, CAMPAIGNS - FEW_CAMPAIGNS);
    await restartAllocation();
    const scaling = (manyFirst.requestsPerSecond + manySecond.requestsPerSecond) / (fewFirst.requestsPerSecond + fewSecond.requestsPerSecond);

    log(`4. propagation, ${TRIALS} trials of activation and pause (${CAMPAIGNS} active campaigns)`);
    const propagated = await withLimitResets(system, keys, () => propagation(system, admin, propagationCampaign, keys));
    const rssAfter = system.rssOf('allocation');

    // Report.
    const ratio = (result: PhaseResult) => result.requestsPerSecond / baseline.requestsPerSecond;
    const loadTable = [
      ['phase', 'req/s', 'p50', 'p99', 'requests', 'statuses', 'errors', '429', 'vs baseline'],
      ...results.map((result) => [
        result.name,
        fixed(result.requestsPerSecond, 0),
        ms(result.p50),
        ms(result.p99),
        String(result.total),
        Object.entries(result.statuses)
          .map(([code, count]) => `${code}:${count}`)
          .join(' '),
        String(result.errors),
        String(result.rateLimited),
        fixed(ratio(result)),
      ]),
    ];
    const names = [...new Set(results.flatMap((result) => Object.keys(result.cpu)))];
    const cpuTable = [
      ['CPU ms per request', ...names],
      ...results.map((result) => [result.name, ...names.map((name) => (result.cpu[name] === undefined ? '' : fixed(result.cpu[name] as number)))]),
    ];
    const p = (samples: number[], q: number) => percentile(samples, q);
    const series = (samples: { fromSend: number; fromAnswer: number; call: number }[], field: 'fromSend' | 'fromAnswer' | 'call') => samples.map((sample) => sample[field]);
    const activationDone = series(propagated.activation, 'fromAnswer');
    const pauseDone = series(propagated.pause, 'fromAnswer');
    const row = (name: string, samples: number[]) => [name, String(samples.length), ms(p(samples, 50)), ms(p(samples, 99)), ms(Math.max(...samples))];
    const propagationTable = [
      ['propagation', 'n', 'p50', 'p99', 'max'],
      row('activation -> selectable, from the 200 of the call', activationDone),
      row('pause -> not selected, from the 200 of the call', pauseDone),
      row('activation -> selectable, from sending the call', series(propagated.activation, 'fromSend')),
      row('pause -> not selected, from sending the call', series(propagated.pause, 'fromSend')),
      row('the activate call itself', series(propagated.activation, 'call')),
      row('the pause call itself', series(propagated.pause, 'call')),
    ];
    const mb = (bytes: number) => bytes / 1024 / 1024;
    const allErrors =
      results.reduce((sum, result) => sum + result.errors, 0) + Object.values(propagated.others).reduce((a, b) => a + b, 0) + propagated.timedOut;
    const checks: Check[] = [
      { figure: 'ad endpoint / baseline', value: fixed(ratio(ad)), target: '>= 0.5', pass: ratio(ad) >= 0.5 },
      { figure: 'confirmation / baseline', value: fixed(ratio(confirmation)), target: '>= 0.4', pass: ratio(confirmation) >= 0.4 },
      { figure: 'click / baseline', value: fixed(ratio(click)), target: '>= 0.4', pass: ratio(click) >= 0.4 },
      {
        figure: `${CAMPAIGNS} vs ${FEW_CAMPAIGNS} campaigns`,
        value: fixed(scaling),
        target: '>= 0.9',
        pass: scaling >= 0.9,
      },
      { figure: 'activation propagation p99', value: ms(p(activationDone, 99)), target: '<= 100 ms', pass: p(activationDone, 99) <= 100 },
      { figure: 'pause propagation p99', value: ms(p(pauseDone, 99)), target: '<= 100 ms', pass: p(pauseDone, 99) <= 100 },
      { figure: 'errors (incl. 429)', value: String(allErrors), target: '0', pass: allErrors === 0 },
      { figure: `allocation RSS, ${CAMPAIGNS} campaigns`, value: `${fixed(mb(Math.max(rssMany, rssAfter)), 1)} MB`, target: '<= 200 MB', pass: mb(Math.max(rssMany, rssAfter)) <= 200 },
    ];
    const cpus = os.cpus();
    const machine = `${cpus.length} x ${cpus[0]?.model ?? 'cpu'}, ${(os.totalmem() / 1024 ** 3).toFixed(1)} GB, ${os.type()} ${os.release()}, Node ${process.version}`;
    const report = [
      '',
      `Benchmark ${system.runId}  ${new Date(startedAt).toISOString()}`,
      `machine: ${machine}`,
      `load average before/after: ${loadBefore.map((v) => v.toFixed(2)).join(' ')} / ${os.loadavg().map((v) => v.toFixed(2)).join(' ')}`,
      `load: autocannon, ${settings.connections} keep-alive connections, ${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s per phase; ${PUBLISHERS} publishers in turn`,
      '',
      table(loadTable),
      '',
      table(cpuTable),
      '(rabbitmq and redis are shared with anything else running on the machine)',
      '',
      table(propagationTable),
      Object.keys(propagated.others).length > 0 ? `propagation polls answered otherwise: ${JSON.stringify(propagated.others)}` : '',
      propagated.timedOut > 0 ? `propagation trials not seen within ${TRIAL_DEADLINE_MS} ms (counted at that value): ${propagated.timedOut}` : '',
      '',
      `allocation restart with ${CAMPAIGNS} active campaigns (stop, start, snapshot loaded, ready): ${restartSeconds.toFixed(1)} s`,
      `allocation RSS: ${fixed(mb(rssFew), 1)} MB with ${FEW_CAMPAIGNS} campaigns, ${fixed(mb(rssMany), 1)} MB with ${CAMPAIGNS} after the load, ${fixed(mb(rssAfter), 1)} MB after the propagation trials`,
      '',
      table([['figure', 'value', 'target', 'result'], ...checks.map((check) => [check.figure, check.value, check.target, check.pass ? 'PASS' : 'MISS'])]),
      '',
      `total run time ${((Date.now() - startedAt) / 1000).toFixed(0)} s`,
      '',
    ].join('\n');
    process.stdout.write(report);
    const file = path.join(ROOT, '.data', 'bench', system.runId, 'results.json');
    writeFileSync(file, JSON.stringify({ machine, settings, results, propagated, rss: { rssFew, rssMany, rssAfter }, restartSeconds, checks }, null, 2));
    log(`figures also in ${path.relative(ROOT, file)}`);
  } finally {
    log('stopping the system and removing its databases, queues and keys');
    await system.stop();
    await cleanUp(system).catch((error: unknown) => log(`clean-up: ${(error as Error).message}`));
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
