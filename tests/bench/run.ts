/**
 * The benchmark of the hot paths and of counting at volume. Prints its figures; asserts nothing,
 * and is not part of the test command. Run it with `bash scripts/bench.sh` (which starts FerretDB for it);
 * docs/performance.md says what it measures and how.
 *
 *   throughput      baseline (a gateway in front of a trivial upstream); ad endpoint, delivery
 *                   confirmation, click redirect, each as a ratio of the baseline;
 *   tracing         the throughput series again with tracing on (OTLP export), its ratios beside tracing off;
 *   scaling         ad requests/s with 10 and with 10,000 active campaigns, resident memory of allocation;
 *   propagation     activation -> selectable, pause -> no longer selected, over 100 trials;
 *   campaign-calls  the administrator's pause and activate calls with 10,000 campaigns stored;
 *   lists           the paged lists and the audit with 10,000 campaigns and 2,000 platforms stored
 *                   (tests/bench/lists.ts): first and deep pages, filters and search, administrator and owner;
 *   report          the report (tests/bench/report.ts): its day documents of 30 days seeded directly (1,000
 *                   campaigns a day of a network of 10,000 campaigns and 2,000 platforms), then the report's
 *                   use case timed for each of its sources, pages and the CSV, with store commands and CPU a call;
 *   counting        1,000,000 facts seeded through the counting code over 30 days, folded by tracking,
 *                   then the stats call of three accounts, and the per-event data left behind.
 *
 * Settings (environment): MONGO_URL (required), BENCH_PHASES (all of the above, comma-separated, in that
 * order), BENCH_DURATION (s, 10), BENCH_WARMUP (s, 10), BENCH_CONNECTIONS (16), BENCH_TRIALS (100),
 * BENCH_PUBLISHERS (200), BENCH_CAMPAIGNS (10000), BENCH_CAMPAIGN_CALLS (pairs, 100), BENCH_CAMPAIGN_WARMUP (pairs, 20), BENCH_FACTS
 * (1000000), BENCH_FOLD_WAIT (s, 900), BENCH_STATS_CALLS (200), BENCH_LIST_CALLS (40), BENCH_REPORT_PAIRS (campaigns a
 * day, 1000), BENCH_REPORT_CALLS (10).
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { connectMongo } from '../../packages/storage/src';
import { createRedis, waitForRedis } from '../../packages/platform/src';
import { measure, percentile, type LoadSettings, type Phase, type PhaseResult } from './load';
import { cleanUp } from './cleanup';
import { perEventData, seedCounts, storeCommands, timeStats, waitForFolding, type FoldWait, type Owned, type PerEventData, type StatsTiming } from './counting';
import { cpuPerRequest, infrastructurePids, sampleCpu } from './cpu';
import { commandsText, costLines, costPerOperation, costSnapshot, cpuText, idleRates, ourCpu, commandsPerOperation } from './per-operation';
import { ADMIN_ID, ROOT, SERVICE_NAMES, startBenchSystem, type BenchSystem } from './system';
import { advertiserId, deepCursors, p95Of, platformOwnerId, removeLists, seedLists, timeLists, timeWorkTables, type ListTiming, type Meter } from './lists';
import { reportLines, timeReports, type ReportTiming } from './report';
import { collectionsPerDatabase, commandsPerCampaignTransition } from './storage';
import { activeCampaign, approvedPublisher, draftCampaign, inParallel, signedIn, type Browser, type PublisherKey } from './workspace';

const settings: LoadSettings = {
  connections: Number(process.env.BENCH_CONNECTIONS ?? 16),
  durationSeconds: Number(process.env.BENCH_DURATION ?? 10),
  // Long enough for V8 to have optimised the hot path: a process serving all day runs its optimised code.
  warmupSeconds: Number(process.env.BENCH_WARMUP ?? 10),
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
const ALL_PHASES = ['throughput', 'tracing', 'scaling', 'propagation', 'campaign-calls', 'lists', 'report', 'counting'] as const;
const PHASES = new Set(
  (process.env.BENCH_PHASES ?? ALL_PHASES.join(','))
    .split(',')
    .map((phase) => phase.trim())
    .filter(Boolean),
);
const CAMPAIGN_CALL_PAIRS = Number(process.env.BENCH_CAMPAIGN_CALLS ?? 100);
/** Pairs made before the timed ones and not measured, as the throughput phases warm up. */
const CAMPAIGN_WARMUP_PAIRS = Number(process.env.BENCH_CAMPAIGN_WARMUP ?? 20);
/** People pausing and activating at once, each their own campaign, for the CPU a call costs a busy service. */
const CONCURRENT_CALLERS = 4;
/** The idle window before the campaign calls, whose CPU a second is taken off theirs. */
const IDLE_SECONDS = 5;
/** The processes a campaign transition runs through (the others only idle meanwhile). */
const TRANSITION_PROCESSES = ['campaign', 'gateway', 'notification', 'allocation', 'tracking'];
const LIST_CALLS = Number(process.env.BENCH_LIST_CALLS ?? 40);
const REPORT_PAIRS = Number(process.env.BENCH_REPORT_PAIRS ?? 1_000);
const REPORT_CALLS = Number(process.env.BENCH_REPORT_CALLS ?? 10);
/** Counting at volume: an advertiser account with 100 campaigns, whose stats are timed with the others'. */
const STATS_ADVERTISER = '3002';
const STATS_CAMPAIGNS = 100;
const SEED_FACTS = Number(process.env.BENCH_FACTS ?? 1_000_000);
const SEED_DAYS = 30;
/**
 * Seeding calls in flight at once. Redis runs the count scripts one at a time, so seeding is bound by Redis
 * either way; more calls in flight only lengthen its queue (512, with up to three scripts each, queued past
 * the 1 s command timeout while a fold claimed an interval).
 */
const SEED_IN_FLIGHT = 64;
/** Tracking's fold interval when it folds (the configuration's default). */
const FOLD_INTERVAL_MS = 1000;
const FOLD_WAIT_SECONDS = Number(process.env.BENCH_FOLD_WAIT ?? 900);
const STATS_CALLS = Number(process.env.BENCH_STATS_CALLS ?? 200);
/** A stats call's p95, one call at a time, at BENCH_FACTS counted facts (the counting issue's target). */
const STATS_P95_TARGET_MS = 20;
const SETTLE_LIMIT_SECONDS = 60;
const STATS_LOAD: LoadSettings = { connections: 8, durationSeconds: 5, warmupSeconds: 1 };
/** The processes a stats call runs through (the store aside). */
const STATS_PROCESSES = ['tracking', 'gateway'];

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
      const key = rotation.take().key;
      return { method: 'GET', path: '/api/network/ad?language=en', headers: { authorization: `Bearer ${key}` }, tag: key };
    },
    onResponse(status, body, key) {
      if (deliveries === null || status !== 200 || key === undefined) return;
      const ad = JSON.parse(body) as { delivery_token: string; click_url: string };
      // Tokens are opaque: the ad is confirmed with the key that asked for it.
      deliveries.push({ key, token: ad.delivery_token, clickPath: new URL(ad.click_url).pathname });
    },
  };
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
    const db = connection.db!;
    const model = await db.collection('campaigns').findOne({ status: 'active', language: 'en' });
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
      await db.collection('campaigns').insertMany(batch as never[], { ordered: false });
    }
  } finally {
    await connection.close();
  }
}

/** Removes what addActiveCampaigns copied (ids from 10,000,000 up). */
async function removeBackgroundCampaigns(system: BenchSystem): Promise<void> {
  const connection = await connectMongo({ url: system.mongoUrl, dbName: system.dbOf('campaign') });
  try {
    await connection.db!.collection('campaigns').deleteMany({ _id: { $gte: BACKGROUND_FIRST_ID } as never }, { timeoutMS: 0 });
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

/** The stats call of one account, half the requests with a from/to filter (autocannon). */
function statsPhase(system: BenchSystem, name: string, browser: Browser, range: string): Phase {
  let next = 0;
  const cookie = browser.cookieHeader();
  return {
    name,
    url: system.baseUrl,
    expected: [200],
    next() {
      next += 1;
      return { method: 'GET', path: `/api/workspace/stats${next % 2 === 0 ? range : ''}`, headers: { cookie } };
    },
  };
}

/**
 * Sequential pause-then-activate pairs of the administrator over real (active) campaigns, timed each;
 * BENCH_CALL_GAP_MS apart (0: each right after the one before, while its consumers and finish still run).
 */
async function timeCampaignCalls(admin: Browser, campaignIds: number[], pairs: number): Promise<{ pause: number[]; activate: number[] }> {
  const pause: number[] = [];
  const activate: number[] = [];
  const timed = async (action: 'pause' | 'activate', id: number, into: number[]) => {
    const started = performance.now();
    await admin.must(200, 'POST', `/api/workspace/campaigns/${id}/${action}`);
    into.push(performance.now() - started);
  };
  const gap = Number(process.env.BENCH_CALL_GAP_MS ?? 0);
  const rest = () => new Promise((resolve) => setTimeout(resolve, gap));
  for (let i = 0; i < pairs; i += 1) {
    const id = campaignIds[i % campaignIds.length] as number;
    await rest();
    await timed('pause', id, pause);
    await rest();
    await timed('activate', id, activate);
  }
  return { pause, activate };
}

/**
 * Waits until the counts of the earlier phases are folded (at most 150 s): each phase measures its own
 * path, not tracking's folder applying the previous minute to the totals on the same FerretDB, whose cost
 * the counting phase measures (docs/performance.md, method).
 */
async function foldedBefore(system: BenchSystem, phase: string): Promise<void> {
  const folded = await waitForFolding(system, 150, log);
  log(`   the earlier counts folded ${folded.seconds.toFixed(0)} s before the ${phase} phase${folded.finished ? '' : ' (not all: waited 150 s)'}`);
}

/** Waits until a process uses less than 10 % of a core over 2 s, or `limitSeconds`. */
async function settle(pid: number, limitSeconds: number): Promise<{ seconds: number; busy: number }> {
  const started = performance.now();
  for (;;) {
    const before = sampleCpu({ db: pid }).db ?? Number.NaN;
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const busy = ((sampleCpu({ db: pid }).db ?? Number.NaN) - before) / 2000;
    const seconds = (performance.now() - started) / 1000;
    if (!(busy >= 0.1) || seconds >= limitSeconds) return { seconds, busy };
  }
}

/** A UTC date `days` after `date` (YYYY-MM-DD). */
function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00.000Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

const mb = (bytes: number) => bytes / 1024 / 1024;

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
  const unknown = [...PHASES].filter((phase) => !(ALL_PHASES as readonly string[]).includes(phase));
  if (unknown.length > 0) throw new Error(`BENCH_PHASES: unknown ${unknown.join(', ')}; phases are ${ALL_PHASES.join(', ')}`);
  if (PHASES.has('tracing') && (!PHASES.has('throughput') || process.env.BENCH_TRACING === '1')) {
    throw new Error('BENCH_PHASES: tracing compares with the throughput phase, traced off: run it with throughput and without BENCH_TRACING');
  }
  const startedAt = Date.now();
  const loadBefore = os.loadavg();
  log(`phases: ${[...PHASES].join(', ')}`);
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
    const fewCampaigns = await inParallel(Array.from({ length: FEW_CAMPAIGNS }, (_, i) => i), 4, (i) => activeCampaign(advertiser, admin, i, 'en'));
    // The propagation campaign: approved, activated and paused by the trials.
    const propagationCampaign = await activeCampaign(advertiser, admin, 999_999, PROPAGATION_LANGUAGE);
    await admin.must(200, 'POST', `/api/workspace/campaigns/${propagationCampaign}/pause`);
    // Counting at volume: one advertiser with 100 campaigns (drafts: counted and owned, never selected).
    let statsAdvertiser: Browser | null = null;
    let statsCampaigns: number[] = [];
    if (PHASES.has('counting')) {
      statsAdvertiser = await signedIn(system, STATS_ADVERTISER);
      const owner = statsAdvertiser;
      statsCampaigns = await inParallel(Array.from({ length: STATS_CAMPAIGNS }, (_, i) => i), 4, (i) => draftCampaign(owner, 500_000 + i, 'en'));
    }
    log(`set-up done in ${((Date.now() - startedAt) / 1000).toFixed(0)} s`);

    const ferretPid = Number(process.env.BENCH_FERRETDB_PID ?? '') || null;
    const pids = () => ({ ...system.pids(), ...infrastructurePids(ferretPid) });
    if (ferretPid) {
      // The set-up leaves the database busy for a while (outbox passes over the history it wrote): wait for
      // it, so that the first phases do not share the cores with it.
      const settled = await settle(ferretPid, SETTLE_LIMIT_SECONDS);
      log(`   database settled after ${settled.seconds.toFixed(0)} s (${(100 * settled.busy).toFixed(0)} % of a core over the last 2 s)`);
    }
    const results: PhaseResult[] = [];
    const checks: Check[] = [];
    const report: string[] = [];
    const extraErrors: number[] = [];
    const restartAllocation = async () => {
      const started = performance.now();
      await system.restart('allocation');
      // The gateway's operator port reports each upstream replica; every one must be up again.
      const report = (await (await fetch(`${system.gatewayOperatorUrl}/readyz`)).json()) as { checks: Record<string, string> };
      if (Object.values(report.checks).some((check) => check !== 'ok')) throw new Error(`an upstream is not ready after the restart: ${JSON.stringify(report.checks)}`);
      return (performance.now() - started) / 1000;
    };
    let backgroundStored = false;
    const storeBackground = async () => {
      if (backgroundStored) return;
      log(`   adding ${CAMPAIGNS - FEW_CAMPAIGNS} active campaigns and restarting allocation (it loads the snapshot at start)`);
      await addActiveCampaigns(system, CAMPAIGNS - FEW_CAMPAIGNS);
      await restartAllocation();
      backgroundStored = true;
    };

    /** Baseline, ad, confirmation and click, in that order (the confirmations confirm the ads just served). */
    const throughputSeries = async (suffix: string) => {
      const named = (result: PhaseResult) => ({ ...result, name: `${result.name}${suffix}` });
      const deliveries: Delivery[] = [];
      await foldedBefore(system, `baseline${suffix}`);
      log(`   baseline${suffix}`);
      const base = named(await measure(baselinePhase(system, keys), settings, pids, system));
      baseline ??= base; // the "vs baseline" column: the untraced series' baseline
      log(`   ad endpoint (10 active campaigns)${suffix}`);
      const ad = named(await withLimitResets(system, keys, () => measure(adPhase(system, 'ad', keys, deliveries), settings, pids, system)));
      log(`   ${deliveries.length} ads answered; confirming and clicking them`);
      await foldedBefore(system, 'confirmation');
      const confirmation = named(await measure(confirmPhase(system, deliveries), settings, pids, system));
      await foldedBefore(system, 'click');
      const click = named(await measure(clickPhase(system, deliveries), settings, pids, system));
      results.push(base, ad, confirmation, click);
      const ratio = (result: PhaseResult) => result.requestsPerSecond / base.requestsPerSecond;
      return { ad: ratio(ad), confirmation: ratio(confirmation), click: ratio(click), phases: { ad, confirmation, click }, base };
    };

    let baseline: PhaseResult | null = null;
    let untraced: Awaited<ReturnType<typeof throughputSeries>> | null = null;
    if (PHASES.has('throughput')) {
      log('1. throughput: baseline, then the ad endpoint, confirmations and clicks');
      const ratios = await throughputSeries('');
      untraced = ratios;
      checks.push(
        { figure: 'ad endpoint / baseline', value: fixed(ratios.ad), target: '>= 0.7', pass: ratios.ad >= 0.7 },
        { figure: 'confirmation / baseline', value: fixed(ratios.confirmation), target: '>= 0.7', pass: ratios.confirmation >= 0.7 },
        { figure: 'click / baseline', value: fixed(ratios.click), target: '>= 0.7', pass: ratios.click >= 0.7 },
      );
      // Our processes' CPU per request against the baseline's (its gateway and the trivial upstream).
      const cpuOf = (result: PhaseResult, names: readonly string[]) => names.reduce((sum, name) => sum + (result.cpu[name] ?? 0), 0);
      const baselineCpu = cpuOf(ratios.base, ['gateway-baseline', 'trivial-upstream']);
      for (const [phase, names] of [
        ['ad', ['allocation', 'gateway']],
        ['confirmation', ['tracking', 'gateway']],
        ['click', ['tracking', 'gateway']],
      ] as const) {
        const ours = cpuOf(ratios.phases[phase], names);
        const times = ours / baselineCpu;
        checks.push({ figure: `CPU ms per ${phase} request, ${names.join(' + ')} (x the baseline's ${fixed(baselineCpu)})`, value: `${fixed(ours)} (${fixed(times, 1)} x)`, target: '<= 1.7 x', pass: times <= 1.7 });
      }
    }

    if (PHASES.has('tracing') && untraced) {
      // The same series with the processes on those paths exporting spans over OTLP (to a sink that accepts
      // and drops them): first with the default sampling (a share of the traces, every error), then with
      // every span (OTEL_TRACES_SAMPLER=parentbased_always_on), then restarted without tracing for the
      // phases that follow.
      const traced = ['allocation', 'tracking', 'gateway', 'gateway-baseline'];
      const restartAll = async (env: NodeJS.ProcessEnv) => {
        for (const name of traced) await system.restart(name, env);
        const ready = (await (await fetch(`${system.gatewayOperatorUrl}/readyz`)).json()) as { checks: Record<string, string> };
        if (Object.values(ready.checks).some((check) => check !== 'ok')) throw new Error(`an upstream is not ready after the restart: ${JSON.stringify(ready.checks)}`);
      };
      const endpoint = await system.tracingEndpoint();
      log(`2. the throughput series again with tracing on (${traced.join(', ')} restarted exporting their spans over OTLP), default sampling`);
      await restartAll({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_SAMPLER: undefined });
      const sampled = await throughputSeries(', tracing on (default sampling)');
      log('   and with every span traced');
      await restartAll({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_SAMPLER: 'parentbased_always_on' });
      const everySpan = await throughputSeries(', tracing on (every span)');
      await restartAll({ OTEL_EXPORTER_OTLP_ENDPOINT: undefined, OTEL_TRACES_SAMPLER: undefined });
      const off = untraced;
      const perSecond = (phase: 'ad' | 'confirmation' | 'click', series: typeof untraced) => series.phases[phase].requestsPerSecond;
      const row = (phase: 'ad' | 'confirmation' | 'click') => [
        phase,
        fixed(perSecond(phase, off), 0),
        `${fixed(perSecond(phase, sampled), 0)} (${fixed(perSecond(phase, sampled) / perSecond(phase, off))})`,
        `${fixed(perSecond(phase, everySpan), 0)} (${fixed(perSecond(phase, everySpan) / perSecond(phase, off))})`,
      ];
      report.push(
        table([
          ['requests a second (share of untraced)', 'tracing off', 'default sampling', 'every span'],
          row('ad'),
          row('confirmation'),
          row('click'),
        ]),
        '(the baseline gateway traces too in the traced series; the target: >= 0.8 of untraced with the default sampling)',
        '',
      );
      for (const phase of ['ad', 'confirmation', 'click'] as const) {
        const share = perSecond(phase, sampled) / perSecond(phase, off);
        checks.push({ figure: `${phase} requests/s, default tracing / untraced`, value: fixed(share), target: '>= 0.8', pass: share >= 0.8 });
      }
    }

    let rssMany = 0;
    let restartSeconds = Number.NaN;
    if (PHASES.has('scaling')) {
      // The scaling pair runs in the order 10, 10,000, 10,000, 10 (each set on a freshly restarted allocation
      // after a 10 s warm-up) and compares the sums: what drifts on a shared machine during the minutes it
      // takes cancels out, and a cold process or the database settling after the bulk insert of campaigns
      // weighs on both sides alike.
      const scalingSettings = { ...settings, warmupSeconds: Math.max(settings.warmupSeconds, 10) };
      const scalingPhase = async (label: string) => {
        await foldedBefore(system, label);
        const result = await withLimitResets(system, keys, () => measure(adPhase(system, label, keys, null), scalingSettings, pids));
        results.push(result);
        return result;
      };
      log(`3. selection scaling: ${FEW_CAMPAIGNS}, ${CAMPAIGNS}, ${CAMPAIGNS}, ${FEW_CAMPAIGNS} active campaigns (${scalingSettings.warmupSeconds} s warm-up each)`);
      await restartAllocation();
      const fewFirst = await scalingPhase(`ad, ${FEW_CAMPAIGNS} campaigns (1)`);
      const rssFew = system.rssOf('allocation');
      log(`   adding ${CAMPAIGNS - FEW_CAMPAIGNS} active campaigns and restarting allocation (it loads the snapshot at start)`);
      await addActiveCampaigns(system, CAMPAIGNS - FEW_CAMPAIGNS);
      restartSeconds = await restartAllocation();
      log(`   allocation ready again after ${restartSeconds.toFixed(1)} s (most of it the snapshot of ${CAMPAIGNS} campaigns)`);
      const manyFirst = await scalingPhase(`ad, ${CAMPAIGNS} campaigns (1)`);
      const manySecond = await scalingPhase(`ad, ${CAMPAIGNS} campaigns (2)`);
      rssMany = system.rssOf('allocation');
      log(`   removing them again and restarting allocation`);
      await removeBackgroundCampaigns(system);
      await restartAllocation();
      const fewSecond = await scalingPhase(`ad, ${FEW_CAMPAIGNS} campaigns (2)`);
      const scaling = (manyFirst.requestsPerSecond + manySecond.requestsPerSecond) / (fewFirst.requestsPerSecond + fewSecond.requestsPerSecond);
      checks.push({ figure: `${CAMPAIGNS} vs ${FEW_CAMPAIGNS} campaigns`, value: fixed(scaling, 3), target: '>= 0.9', pass: scaling >= 0.9 });
      report.push(
        `allocation restart with ${CAMPAIGNS} active campaigns (stop, start, snapshot loaded, ready): ${restartSeconds.toFixed(1)} s`,
        `allocation RSS: ${fixed(mb(rssFew), 1)} MB with ${FEW_CAMPAIGNS} campaigns, ${fixed(mb(rssMany), 1)} MB with ${CAMPAIGNS} after the load`,
        '',
      );
    }

    let propagated: Awaited<ReturnType<typeof propagation>> | null = null;
    if (PHASES.has('propagation')) {
      log(`   the ${CAMPAIGNS - FEW_CAMPAIGNS} background campaigns stored again for the propagation trials`);
      await storeBackground();
      log(`4. propagation, ${TRIALS} trials of activation and pause (${CAMPAIGNS} active campaigns)`);
      const trials = await withLimitResets(system, keys, () => propagation(system, admin, propagationCampaign, keys));
      propagated = trials;
      const rssAfter = system.rssOf('allocation');
      const series = (samples: { fromSend: number; fromAnswer: number; call: number }[], field: 'fromSend' | 'fromAnswer' | 'call') => samples.map((sample) => sample[field]);
      const activationDone = series(trials.activation, 'fromAnswer');
      const pauseDone = series(trials.pause, 'fromAnswer');
      const row = (name: string, samples: number[]) => [name, String(samples.length), ms(percentile(samples, 50)), ms(percentile(samples, 99)), ms(Math.max(...samples))];
      report.push(
        table([
          ['propagation', 'n', 'p50', 'p99', 'max'],
          row('activation -> selectable, from the 200 of the call', activationDone),
          row('pause -> not selected, from the 200 of the call', pauseDone),
          row('activation -> selectable, from sending the call', series(trials.activation, 'fromSend')),
          row('pause -> not selected, from sending the call', series(trials.pause, 'fromSend')),
          row('the activate call itself', series(trials.activation, 'call')),
          row('the pause call itself', series(trials.pause, 'call')),
        ]),
        Object.keys(trials.others).length > 0 ? `propagation polls answered otherwise: ${JSON.stringify(trials.others)}` : '',
        trials.timedOut > 0 ? `propagation trials not seen within ${TRIAL_DEADLINE_MS} ms (counted at that value): ${trials.timedOut}` : '',
        `allocation RSS after the propagation trials: ${fixed(mb(rssAfter), 1)} MB`,
        '',
      );
      extraErrors.push(Object.values(trials.others).reduce((a, b) => a + b, 0) + trials.timedOut);
      checks.push(
        { figure: 'activation propagation p99', value: ms(percentile(activationDone, 99)), target: '<= 100 ms', pass: percentile(activationDone, 99) <= 100 },
        { figure: 'pause propagation p99', value: ms(percentile(pauseDone, 99)), target: '<= 100 ms', pass: percentile(pauseDone, 99) <= 100 },
      );
      const rss = Math.max(rssMany, rssAfter);
      checks.push({ figure: `allocation RSS, ${CAMPAIGNS} campaigns`, value: `${fixed(mb(rss), 1)} MB`, target: '<= 150 MB', pass: mb(rss) <= 150 });
    }

    let campaignCalls: { pause: number[]; activate: number[] } | null = null;
    if (PHASES.has('campaign-calls')) {
      await storeBackground();
      log(`5. activate / pause calls: ${CAMPAIGN_CALL_PAIRS} pairs as administrator, ${CAMPAIGNS} campaigns stored`);
      await foldedBefore(system, 'activate / pause');
      await timeCampaignCalls(admin, fewCampaigns, CAMPAIGN_WARMUP_PAIRS);
      // Each process's CPU with nothing asked of it (relays, probes, the folder) is measured first and taken
      // off: the calls are sequential, so it would count more per call the slower the machine answers.
      const idle = await idleRates(system, pids(), IDLE_SECONDS);
      const costBefore = await costSnapshot(system, pids());
      const calls = await timeCampaignCalls(admin, fewCampaigns, CAMPAIGN_CALL_PAIRS);
      // The events of the last calls are still being handled (notification, the caches): a second for them.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const callCost = costPerOperation(costBefore, await costSnapshot(system, pids()), calls.pause.length + calls.activate.length, idle);
      campaignCalls = calls;
      // The same calls made by several people at once, as a workspace of many people makes them: their CPU per
      // call beside the sequential figure tells how much of that is processes woken for one call alone.
      const concurrentBefore = await costSnapshot(system, pids());
      const concurrentCalls = await inParallel(fewCampaigns.slice(0, CONCURRENT_CALLERS), CONCURRENT_CALLERS, (id) =>
        timeCampaignCalls(admin, [id], Math.ceil(CAMPAIGN_CALL_PAIRS / CONCURRENT_CALLERS)),
      );
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const concurrentCount = concurrentCalls.reduce((sum, made) => sum + made.pause.length + made.activate.length, 0);
      const concurrentCost = costPerOperation(concurrentBefore, await costSnapshot(system, pids()), concurrentCount, idle);
      const row = (name: string, samples: number[]) => [name, String(samples.length), ms(percentile(samples, 50)), ms(percentile(samples, 95)), ms(Math.max(...samples))];
      report.push(
        table([
          [`workspace call, ${CAMPAIGNS} campaigns stored, sequential`, 'n', 'p50', 'p95', 'max'],
          row('POST /api/workspace/campaigns/{id}/pause', calls.pause),
          row('POST /api/workspace/campaigns/{id}/activate', calls.activate),
        ]),
        '',
        `(each process, the events each call caused included, its idle CPU over the same time taken off: ${Object.entries(idle)
          .filter(([, rate]) => rate >= 0.5)
          .map(([name, rate]) => `${name} ${fixed(rate, 1)}`)
          .join(', ')} ms a second)`,
        ...costLines('per pause or activate call', callCost, TRANSITION_PROCESSES),
        ...costLines(`per pause or activate call, ${CONCURRENT_CALLERS} callers at once (${concurrentCount} calls)`, concurrentCost, TRANSITION_PROCESSES),
        '',
      );
      const transitionCpu = ourCpu(callCost, TRANSITION_PROCESSES);
      const concurrentCpu = ourCpu(concurrentCost, TRANSITION_PROCESSES);
      checks.push(
        { figure: 'CPU ms per pause or activate: campaign, gateway, notification, allocation, tracking', value: fixed(transitionCpu), target: '<= 8', pass: transitionCpu <= 8 },
        { figure: `the same, ${CONCURRENT_CALLERS} callers at once`, value: fixed(concurrentCpu), target: '<= 8', pass: concurrentCpu <= 8 },
      );
      for (const [name, samples] of [
        ['pause', calls.pause],
        ['activate', calls.activate],
      ] as const) {
        const p95 = percentile(samples, 95);
        checks.push({ figure: `${name} call p95, ${CAMPAIGNS} campaigns stored`, value: ms(p95), target: '<= 25 ms', pass: p95 <= 25 });
      }
    }

    let lists: ListTiming[] | null = null;
    if (PHASES.has('lists')) {
      if (backgroundStored) {
        log('   removing the background campaigns of the earlier phases: the lists phase stores its own');
        await removeBackgroundCampaigns(system);
        backgroundStored = false;
      }
      log('6. lists: storing 10,000 campaigns (100 advertisers x 100) and 2,000 platforms (20 owners x 100) with their history');
      const seeded = await seedLists(system);
      log(`   stored in ${seeded.seconds.toFixed(0)} s (${seeded.historyEntries.toLocaleString('en')} history entries); ${LIST_CALLS} sequential calls each`);
      try {
        const [listAdvertiser, listPlatformOwner] = await Promise.all([signedIn(system, advertiserId(0)), signedIn(system, platformOwnerId(0))]);
        const deep = await deepCursors(system);
        // Each list call's cost per process, each process's idle CPU over the same time taken off (the calls
        // are sequential, as for the campaign calls).
        const idle = await idleRates(system, pids(), IDLE_SECONDS);
        const meter: Meter = async (work, operations) => {
          const before = await costSnapshot(system, pids());
          const result = await work();
          return { result, cost: costPerOperation(before, await costSnapshot(system, pids()), operations, idle) };
        };
        lists = [...(await timeLists(admin, listAdvertiser, listPlatformOwner, deep, LIST_CALLS, meter)), ...(await timeWorkTables(system, admin, listAdvertiser, listPlatformOwner, deep, LIST_CALLS, meter))];
      } finally {
        await removeLists(system);
      }
      const row = (timing: ListTiming) => [
        timing.call,
        timing.who,
        String(timing.samples.length),
        ms(percentile(timing.samples, 50)),
        ms(p95Of(timing)),
        ms(Math.max(...timing.samples)),
        String(timing.errors),
        `<= ${timing.targetMs} ms`,
        fixed(ourCpu(timing.cost)),
        cpuText(timing.cost),
        `${fixed(commandsPerOperation(timing.cost), 1)}: ${commandsText(timing.cost.commands)}`,
      ];
      report.push(
        table([
          ['list call (GET, limit 50, sequential; a work table: its page\'s calls at once)', 'as', 'n', 'p50', 'p95', 'max', 'not 200', 'target (p95)', 'CPU ms ours', 'CPU ms by process', 'store commands'],
          ...lists.map(row),
        ]),
        '(CPU ms and store commands per call, a work table\'s per page; each process\'s idle CPU taken off)',
        '',
      );
      extraErrors.push(lists.reduce((sum, timing) => sum + timing.errors, 0));
      for (const timing of lists) {
        const p95 = p95Of(timing);
        checks.push({ figure: `${timing.call}, ${timing.who} p95`, value: ms(p95), target: `<= ${timing.targetMs} ms`, pass: p95 <= timing.targetMs });
      }
    }

    let reportTimings: ReportTiming[] | null = null;
    if (PHASES.has('report')) {
      log(`7. report: ${REPORT_PAIRS.toLocaleString('en')} campaigns a day over 30 days, their day documents seeded; ${REPORT_CALLS} sequential calls a case (the CSV 5)`);
      reportTimings = await timeReports({ mongoUrl: system.mongoUrl, redisUrl: system.redisUrl, pairs: REPORT_PAIRS, calls: REPORT_CALLS, log });
      report.push(table(reportLines(reportTimings)), '');
      for (const timing of reportTimings) {
        const p95 = percentile(timing.samples, 95);
        checks.push({ figure: `report ${timing.query}, ${timing.who} p95 (${fixed(timing.commands, 0)} store commands, ${fixed(timing.cpuMs, 0)} CPU ms a call)`, value: ms(p95), target: `<= ${timing.targetMs} ms`, pass: p95 <= timing.targetMs });
      }
    }

    let counting: Record<string, unknown> | null = null;
    if (PHASES.has('counting') && statsAdvertiser) {
      const publisherOwnerOf = (index: number) => PUBLISHER_OWNERS[index % PUBLISHER_OWNERS.length] as string;
      const campaignsOwned: Owned[] = [
        ...statsCampaigns.map((id) => ({ id, owner: STATS_ADVERTISER })),
        ...[...fewCampaigns, propagationCampaign].map((id) => ({ id, owner: CAMPAIGN_OWNER })),
      ];
      const publishersOwned: Owned[] = keys.map((publisher, index) => ({ id: publisher.publisherId, owner: publisherOwnerOf(index) }));
      log(`8. counting at volume: seeding ${SEED_FACTS.toLocaleString('en')} facts over ${SEED_DAYS} days through the counting code (${campaignsOwned.length} campaigns, ${publishersOwned.length} publishers)`);
      // The folder is stopped while the month is seeded, so that the fold is timed alone afterwards: seeding
      // saturates Redis and the cores, and a folder sharing them would measure the seeding as well.
      await system.restart('tracking', { COUNT_FOLD_INTERVAL_MS: '0' });
      const seedPids = pids();
      const cpuBefore = sampleCpu(seedPids);
      const seeded = await seedCounts(system, campaignsOwned, publishersOwned, { facts: SEED_FACTS, days: SEED_DAYS, inFlight: SEED_IN_FLIGHT, log });
      const seedCpu = cpuPerRequest(cpuBefore, sampleCpu(seedPids), seeded.facts / 1000);
      const seededData = await perEventData(system);
      log(`   seeded in ${seeded.seconds.toFixed(0)} s; tracking restarted with its folder, waiting up to ${FOLD_WAIT_SECONDS} s for it to fold everything`);
      // Timed from the restart: the folder starts with the process.
      const foldStartedAt = performance.now();
      const commandsBefore = await storeCommands(system);
      await system.restart('tracking', { COUNT_FOLD_INTERVAL_MS: String(FOLD_INTERVAL_MS) });
      const foldPids = pids();
      const foldCpuBefore = sampleCpu(foldPids);
      const folding = await waitForFolding(system, FOLD_WAIT_SECONDS, log, foldStartedAt);
      const foldCpuAfter = sampleCpu(foldPids);
      const commandsAfter = await storeCommands(system);
      log(folding.finished ? `   folded ${folding.seconds.toFixed(0)} s after the folder started` : `   folding not finished after ${folding.seconds.toFixed(0)} s; measuring the stats calls anyway`);
      const left = await perEventData(system);

      log(`   stats calls: ${STATS_CALLS} sequential calls per account and query, then ${STATS_LOAD.durationSeconds} s of autocannon per account`);
      const range = `?from=${addDays(seeded.lastDay, -6)}&to=${seeded.lastDay}`;
      const accounts: [string, Browser][] = [
        ['administrator', admin],
        [`advertiser with ${STATS_CAMPAIGNS} campaigns`, statsAdvertiser],
        ['publisher owner (50 publishers)', owners[0] as Browser],
      ];
      const timings: { account: string; query: string; timing: StatsTiming }[] = [];
      const statsCosts: { account: string; result: PhaseResult }[] = [];
      for (const [account, browser] of accounts) {
        for (const query of ['', range]) timings.push({ account, query, timing: await timeStats(browser, query, STATS_CALLS) });
        // With the system: the store commands per call are counted too (per-operation.ts).
        const result = await measure(statsPhase(system, `stats, ${account}`, browser, range), STATS_LOAD, pids, system);
        results.push(result);
        statsCosts.push({ account, result });
      }
      // The same calls with the folder stopped: the stats path alone, without a folder applying folds to the
      // same database meanwhile (what is not folded yet is read from Redis, as always).
      log(`   the sequential stats calls again with tracking's folder stopped (restarted with COUNT_FOLD_INTERVAL_MS=0)`);
      await system.restart('tracking', { COUNT_FOLD_INTERVAL_MS: '0' });
      const idleTimings: { account: string; query: string; timing: StatsTiming }[] = [];
      for (const [account, browser] of accounts) {
        for (const query of ['', range]) idleTimings.push({ account, query, timing: await timeStats(browser, query, Math.ceil(STATS_CALLS / 2)) });
      }
      const expected = seeded.byCampaignOwner.get(STATS_ADVERTISER);
      const answered = timings.find((entry) => entry.account.startsWith('advertiser') && entry.query === '')?.timing.last;
      const exact =
        !!expected && !!answered && expected.adRequests === answered.adRequests && expected.confirmedDeliveries === answered.confirmedDeliveries && expected.clickedLinks === answered.clickedLinks;
      extraErrors.push([...timings, ...idleTimings].reduce((sum, entry) => sum + entry.timing.failures, 0));

      const count = (value: number) => value.toLocaleString('en');
      const foldedWhen = (wait: FoldWait) =>
        wait.finished
          ? `${wait.seconds.toFixed(0)} s after the folder started (the last fold claimed: ${wait.after.lastClaimed ?? 'none'})`
          : `NOT finished ${wait.seconds.toFixed(0)} s after the folder started: ${wait.after.openIntervals} intervals not claimed, ${wait.after.pending} folds claimed and not applied (the last claimed: ${wait.after.lastClaimed ?? 'none'}, ${wait.before.pending} pending when the seeding ended)`;
      const grainDaysPerSecond = Math.round(left.totalsGrainDays / folding.seconds);
      // The fold's cost per 1,000 grain-days: the store's commands meanwhile (the folder's, and the
      // benchmark's wait), and the CPU of tracking (the folder), the store and Redis.
      const perThousand = left.totalsGrainDays / 1000;
      const foldCommands = Object.entries(commandsAfter)
        .map(([name, total]) => [name, (total - (commandsBefore[name] ?? 0)) / perThousand] as const)
        .filter(([, value]) => value >= 0.05);
      const foldCpu = cpuPerRequest(foldCpuBefore, foldCpuAfter, perThousand);
      const nothingLeft = (data: PerEventData) => data.onceSetsPastWindow + (data.records ?? 0) + (data.filteredClicks ?? 0);
      const collection = (value: number | null) => (value === null ? 'absent' : `${count(value)} documents`);
      report.push(
        `counting at volume: ${count(seeded.facts)} facts seeded through CountRecorder (${count(seeded.adRequests)} ad requests, ${count(seeded.confirmedDeliveries)} first confirmations, ${count(seeded.clickedLinks)} first clicks), allocations from ${seeded.firstDay} to ${seeded.lastDay}, ${campaignsOwned.length} campaigns (${STATS_CAMPAIGNS} of account ${STATS_ADVERTISER}), ${publishersOwned.length} publishers of ${PUBLISHER_OWNERS.length} owners`,
        `seeding: ${seeded.seconds.toFixed(1)} s (${count(Math.round(seeded.facts / seeded.seconds))} facts/s, ${SEED_IN_FLIGHT} calls in flight); when it ended: ${folding.before.openIntervals} intervals not claimed, ${folding.before.pending} folds claimed and not applied, the last claimed: ${folding.before.lastClaimed ?? 'none'}`,
        `CPU ms per 1,000 facts seeded: ${Object.entries(seedCpu)
          .filter(([, value]) => value >= 0.5)
          .map(([name, value]) => `${name} ${value.toFixed(0)}`)
          .join(', ')}`,
        `folding: ${foldedWhen(folding)}`,
        `totals documents in tracking's database: ${count(left.totalsDocuments)} in ${left.totalsCollections} collections (${count(seededData.totalsDocuments)} when the seeding ended), holding ${count(left.totalsGrainDays)} grain-days (${count(seededData.totalsGrainDays)} when the seeding ended)`,
        `folder: ${count(left.totalsGrainDays)} grain-days folded in ${folding.seconds.toFixed(0)} s from its start after the seeding: ${count(grainDaysPerSecond)} a second (one document per grain-day, its hours included)`,
        `fold cost per 1,000 grain-days: store commands ${foldCommands.map(([name, value]) => `${name} ${value.toFixed(1)}`).join(', ')} (${foldCommands.reduce((sum, [, value]) => sum + value, 0).toFixed(1)} in all); CPU ms ${Object.entries(foldCpu)
          .filter(([name, value]) => value >= 0.5 && ['tracking', 'ferretdb', 'redis'].includes(name))
          .map(([name, value]) => `${name} ${value.toFixed(0)}`)
          .join(', ')}`,
        `counted-once sets in Redis: ${left.onceSets} (${left.onceSetsPastWindow} of hours past their window, ${count(left.onceMembersPastWindow)} allocation ids in those; ${seededData.onceSets} / ${seededData.onceSetsPastWindow} when the seeding ended); hours listed for the sweep: ${left.onceHoursListed}`,
        `per-event collections in tracking's database: records ${collection(left.records)}, filtered_clicks ${collection(left.filteredClicks)}`,
        `stats of account ${STATS_ADVERTISER} equal to what was seeded for it: ${exact ? 'yes' : `NO (seeded ${JSON.stringify(expected)}, answered ${JSON.stringify(answered && { adRequests: answered.adRequests, confirmedDeliveries: answered.confirmedDeliveries, clickedLinks: answered.clickedLinks })})`}`,
        '',
        table([
          ['GET /api/workspace/stats, sequential', 'query', 'n', 'p50', 'p95', 'max', 'not 200', 'adRequests', 'days'],
          ...[...timings, ...idleTimings.map((entry) => ({ ...entry, account: `${entry.account}, folder stopped` }))].map(({ account, query, timing }) => [
            account,
            query === '' ? '(all time)' : query,
            String(timing.samples.length),
            ms(timing.p50),
            ms(timing.p95),
            ms(Math.max(...timing.samples)),
            String(timing.failures),
            timing.last ? count(timing.last.adRequests) : '',
            timing.last ? String(timing.last.days.length) : '',
          ]),
        ]),
        '',
      );
      for (const [account] of accounts) {
        const worst = Math.max(...timings.filter((entry) => entry.account === account).map((entry) => entry.timing.p95));
        checks.push({ figure: `stats p95, ${account}`, value: ms(worst), target: `<= ${STATS_P95_TARGET_MS} ms`, pass: worst <= STATS_P95_TARGET_MS });
      }
      // What a stats call costs our processes (the autocannon phases: half all-time, half the last week).
      for (const { account, result } of statsCosts) {
        const ours = STATS_PROCESSES.reduce((sum, name) => sum + (result.cpu[name] ?? 0), 0);
        const commands = commandsPerOperation({ cpu: {}, commands: result.commands ?? {} });
        checks.push({
          figure: `CPU ms per stats call, ${STATS_PROCESSES.join(' + ')} (${account}; the store ${fixed(result.cpu.ferretdb ?? Number.NaN)}, ${fixed(commands, 1)} store commands)`,
          value: fixed(ours),
          target: '<= 2',
          pass: ours <= 2,
        });
      }
      checks.push(
        {
          figure: 'per-event data left after its window',
          value: `${nothingLeft(left)} (totals documents: ${count(left.totalsDocuments)})`,
          target: '0',
          pass: nothingLeft(left) === 0,
        },
        { figure: `everything folded within ${FOLD_WAIT_SECONDS} s of the seeding`, value: folding.finished ? `${folding.seconds.toFixed(0)} s` : 'no', target: 'yes', pass: folding.finished },
        { figure: 'the seeded month folded by the folder alone', value: folding.finished ? `${folding.seconds.toFixed(0)} s` : 'no', target: '< 60 s', pass: folding.finished && folding.seconds < 60 },
        { figure: 'folder: grain-days written a second (the fold alone)', value: count(grainDaysPerSecond), target: '>= 2,000', pass: folding.finished && grainDaysPerSecond >= 2000 },
        { figure: `stats = seeded counts (account ${STATS_ADVERTISER})`, value: exact ? 'equal' : 'different', target: 'equal', pass: exact },
      );
      counting = { seeded: { ...seeded, byCampaignOwner: Object.fromEntries(seeded.byCampaignOwner) }, seedCpu, folding, seededData, left, timings, idleTimings };
    }

    // Storage: collections in every service's database, store commands per campaign transition.
    const databases = SERVICE_NAMES.map((service) => system.dbOf(service));
    const collections = await collectionsPerDatabase(system.mongoUrl, databases);
    const allCollections = Object.values(collections).reduce((sum, count) => sum + count, 0);
    const perTransition = await commandsPerCampaignTransition(system.mongoUrl, `bench_writes_${system.runId}`);
    report.push(`collections per database: ${Object.entries(collections).map(([name, count]) => `${name} ${count}`).join(', ')}; ${allCollections} in all`, '');
    checks.push(
      { figure: 'collections in all databases', value: String(allCollections), target: '<= 40', pass: allCollections <= 40 },
      { figure: 'store commands per campaign transition on the answer path (read, guarded write)', value: fixed(perTransition.answerPath, 1), target: '<= 2', pass: perTransition.answerPath <= 2 },
      { figure: 'store commands per campaign transition in all (the history insert and the removal after the answer)', value: fixed(perTransition.all, 1), target: '<= 4', pass: perTransition.all <= 4 },
      { figure: 'writes per campaign transition', value: fixed(perTransition.writes, 1), target: '<= 3', pass: perTransition.writes <= 3 },
    );

    // Report.
    const allErrors = results.reduce((sum, result) => sum + result.errors, 0) + extraErrors.reduce((a, b) => a + b, 0);
    checks.push({ figure: 'errors (incl. 429)', value: String(allErrors), target: '0', pass: allErrors === 0 });
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
        baseline ? fixed(result.requestsPerSecond / baseline.requestsPerSecond) : '',
      ]),
    ];
    const names = [...new Set(results.flatMap((result) => Object.keys(result.cpu)))];
    const cpuTable = [
      ['CPU ms per request', ...names],
      ...results.map((result) => [result.name, ...names.map((name) => (result.cpu[name] === undefined ? '' : fixed(result.cpu[name] as number)))]),
    ];
    const commandLines = results
      .filter((result) => result.commands !== undefined)
      .map((result) => `${result.name}: ${commandsText(result.commands ?? {})}`);
    const cpus = os.cpus();
    const machine = `${cpus.length} x ${cpus[0]?.model ?? 'cpu'}, ${(os.totalmem() / 1024 ** 3).toFixed(1)} GB, ${os.type()} ${os.release()}, Node ${process.version}`;
    const output = [
      '',
      `Benchmark ${system.runId}  ${new Date(startedAt).toISOString()}  phases: ${[...PHASES].join(', ')}`,
      `machine: ${machine}`,
      `load average before/after: ${loadBefore.map((v) => v.toFixed(2)).join(' ')} / ${os.loadavg().map((v) => v.toFixed(2)).join(' ')}`,
      `load: autocannon, ${settings.connections} keep-alive connections, ${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s per phase; ${PUBLISHERS} publishers in turn`,
      '',
      ...(results.length > 0 ? [table(loadTable), '', table(cpuTable), '(rabbitmq and redis are shared with anything else running on the machine)', ''] : []),
      ...(commandLines.length > 0 ? ['store commands per request (pilot_store_commands_total of each service):', ...commandLines, ''] : []),
      ...report,
      table([['figure', 'value', 'target', 'result'], ...checks.map((check) => [check.figure, check.value, check.target, check.pass ? 'PASS' : 'MISS'])]),
      '',
      `total run time ${((Date.now() - startedAt) / 1000).toFixed(0)} s`,
      '',
    ].join('\n');
    process.stdout.write(output);
    const file = path.join(ROOT, '.data', 'bench', system.runId, 'results.json');
    writeFileSync(file, JSON.stringify({ machine, settings, phases: [...PHASES], results, propagated, campaignCalls, lists, reportTimings, counting, restartSeconds, checks }, null, 2));
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
