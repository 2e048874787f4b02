/**
 * The soak test: the whole system, every service its own process behind the gateway (as the
 * benchmark starts it, plus a second replica of allocation and of tracking), under a realistic mix of
 * traffic for SOAK_MINUTES (10), with the first replica of allocation and of tracking restarted one after
 * the other at half time (with SOAK_REPLICAS=1, what the single replica refuses while down is counted
 * apart). Prints every minute and at the end: answers by status and code per
 * endpoint, p50/p99 per endpoint, CPU and resident memory per process, collection sizes and Redis; then
 * the checks, each PASS or MISS. Run it with `bash scripts/soak.sh`; docs/reliability.md ("Soak") says
 * what it does and what it found. Not part of the test command.
 *
 * Settings: MONGO_URL (required), SOAK_MINUTES (10), SOAK_PUBLISHERS (100), SOAK_REPLICAS (2),
 * SOAK_FOLD_WAIT (s, 300).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRedis, waitForRedis } from '../../packages/platform/src';
import { cleanUp } from '../bench/cleanup';
import { waitForFolding } from '../bench/counting';
import { infrastructurePids } from '../bench/cpu';
import { ADMIN_ID, ROOT, startBenchSystem, type BenchSystem } from '../bench/system';
import { activeCampaign, approvedPublisher, inParallel, signedIn, type Browser } from '../bench/workspace';
import { judge, type Check, type RestartWindow, type SoakFigures } from './checks';
import { KeyLedger } from './key-ledger';
import { Recorder } from './recorder';
import { addSecondReplicas, stopReplicas, type ExtraReplica } from './replicas';
import { redisSize, StoreSizes, UsageSampler, type ProcessUsage, type RedisSize } from './resources';
import { administrator, advertiser, AD_INTERVAL_MS, keyRotation, publisher, visitor, type Soak } from './traffic';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const PUBLISHERS = Number(process.env.SOAK_PUBLISHERS ?? 100);
const REPLICAS = Number(process.env.SOAK_REPLICAS ?? 2);
const FOLD_WAIT_SECONDS = Number(process.env.SOAK_FOLD_WAIT ?? 300);
const RSS_READ_EVERY_MS = 5000;
const PUBLISHER_OWNERS = ['2001', '2002', '2003', '2004'];
const ASIDE_OWNER = '2005';
const ASIDE_PUBLISHERS = 4;
const SERVING_OWNER = '3001';
const SERVING_CAMPAIGNS = 10;
const ADVERTISERS = ['3002', '3003', '3004', '3005'];
const SLOT = 'home-feature';
const RESTARTED = ['allocation', 'tracking'];
/** The system's own processes that are watched (the benchmark's baseline pair is left out). */
const UNWATCHED = new Set(['trivial-upstream', 'gateway-baseline']);

function log(message: string): void {
  process.stderr.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '-');

async function setUp(system: BenchSystem) {
  const admin = await signedIn(system, ADMIN_ID);
  const owners = await Promise.all(PUBLISHER_OWNERS.map((id) => signedIn(system, id)));
  const asideOwner = await signedIn(system, ASIDE_OWNER);
  const servingOwner = await signedIn(system, SERVING_OWNER);
  const advertisers = await Promise.all(ADVERTISERS.map((id) => signedIn(system, id)));
  const ledger = new KeyLedger();
  const ownerOf = new Map<number, Browser>();
  log(`creating ${PUBLISHERS} approved publishers with keys, ${SERVING_CAMPAIGNS} active campaigns and the feature placement`);
  await inParallel(Array.from({ length: PUBLISHERS }, (_, i) => i), 6, async (i) => {
    const owner = owners[i % owners.length] as Browser;
    const created = await approvedPublisher(owner, admin, `@soak_${i}_bot`);
    ledger.issued(created.publisherId, created.key, Date.now());
    ownerOf.set(created.publisherId, owner);
  });
  const aside = await inParallel(Array.from({ length: ASIDE_PUBLISHERS }, (_, i) => i), 2, async (i) => (await approvedPublisher(asideOwner, admin, `@aside_${i}_bot`)).publisherId);
  await inParallel(Array.from({ length: SERVING_CAMPAIGNS }, (_, i) => i), 4, (i) => activeCampaign(servingOwner, admin, i, 'en'));
  await admin.must(200, 'PUT', `/api/workspace/placements/${SLOT}`, {
    title: 'Publish your bot on the network',
    buttonText: 'Start',
    destinationUrl: 'https://pilot.example/publishers',
    status: 'active',
  });
  return { admin, advertisers, ledger, ownerOf, aside };
}

interface Minute {
  minute: number;
  usage: Record<string, ProcessUsage>;
  documents: Record<string, number>;
  redis: RedisSize;
}

function printMinute(recorder: Recorder, minute: Minute): void {
  const lines = [`minute ${minute.minute + 1}`, `  ${'endpoint'.padEnd(40)} ${'n'.padStart(6)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)}  answers`];
  const answers = recorder.answersIn(minute.minute);
  for (const endpoint of recorder.endpoints()) {
    const latency = recorder.latency(minute.minute, endpoint);
    const byLabel = [...(answers.get(endpoint) ?? new Map<string, number>())].map(([label, count]) => `${label}: ${count}`).join(', ');
    lines.push(`  ${endpoint.padEnd(40)} ${String(latency.count).padStart(6)} ${fixed(latency.p50).padStart(7)} ${fixed(latency.p99).padStart(7)}  ${byLabel}`);
  }
  lines.push(`  ${'process'.padEnd(20)} ${'CPU %'.padStart(6)} ${'peak RSS MB'.padStart(12)}`);
  for (const [name, usage] of Object.entries(minute.usage)) lines.push(`  ${name.padEnd(20)} ${fixed(usage.cpuPercent).padStart(6)} ${fixed(usage.rssMb).padStart(12)}`);
  lines.push(`  documents: ${Object.entries(minute.documents).map(([name, count]) => `${name} ${count}`).join(', ')}`);
  lines.push(`  redis: ${minute.redis.runKeys} keys of this run, ${minute.redis.dbsize} in the database (shared), used_memory ${fixed(minute.redis.usedMemoryMb, 1)} MB`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

function printTotals(recorder: Recorder): void {
  const lines = ['answers over the whole run'];
  for (const endpoint of recorder.endpoints()) {
    const byLabel = [...(recorder.totals.get(endpoint) ?? new Map<string, number>())].map(([label, count]) => `${label}: ${count}`).join(', ');
    lines.push(`  ${endpoint.padEnd(40)} ${byLabel}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function main(): Promise<void> {
  const mongoUrl = process.env.MONGO_URL;
  if (!mongoUrl) throw new Error('MONGO_URL is required (scripts/soak.sh starts a FerretDB for it)');
  log(`starting every service as its own process (${MINUTES} minutes of traffic, ${PUBLISHERS} publishers; ${os.cpus().length} cores, load ${os.loadavg().map((load) => load.toFixed(1)).join(' ')})`);
  const system = await startBenchSystem({ mongoUrl });
  const interrupted = () => {
    log('interrupted: stopping the system and removing its databases, queues and keys');
    void stopReplicas(extra)
      .then(() => system.stop())
      .then(() => cleanUp(system))
      .finally(() => process.exit(130));
  };
  let extra: ExtraReplica[] = [];
  process.once('SIGINT', interrupted);
  process.once('SIGTERM', interrupted);
  log(`system up at ${system.baseUrl} (run ${system.runId}); logs in .data/bench/${system.runId}/`);
  const redis = createRedis(system.redisUrl, 'soak');
  await waitForRedis(redis);
  const sizes = await StoreSizes.open(system);
  try {
    if (REPLICAS >= 2) {
      log(`starting a second replica of ${RESTARTED.join(' and ')}, and the gateway again with both`);
      extra = await addSecondReplicas(system, RESTARTED);
    }
    const { admin, advertisers, ledger, ownerOf, aside } = await setUp(system);
    const ferretPid = Number(process.env.SOAK_FERRETDB_PID ?? '') || null;
    const extraPids = () => Object.fromEntries(extra.map((replica) => [replica.name, replica.child.pid ?? 0]));
    const pids = () => Object.fromEntries(Object.entries({ ...system.pids(), ...extraPids(), ...infrastructurePids(ferretPid) }).filter(([name]) => !UNWATCHED.has(name)));
    const startedAt = Date.now();
    const recorder = new Recorder(startedAt);
    let running = true;
    const soak: Soak = {
      system,
      recorder,
      ledger,
      counted: { adAnswers: 0, firstConfirmations: 0, clicks: 0, impressions: 0 },
      refusedValidKeys: [],
      running: () => running,
    };
    log(`traffic for ${MINUTES} minutes`);
    const sampler = new UsageSampler(pids);
    const peaks = setInterval(() => sampler.notePeaks(), RSS_READ_EVERY_MS);
    const actors = [
      ...[...ownerOf.keys()].map((publisherId, index) => publisher(soak, publisherId, (index * AD_INTERVAL_MS) / ownerOf.size)),
      keyRotation(soak, ownerOf, 6000),
      ...advertisers.map((browser) => advertiser(soak, browser, 2000, 8)),
      administrator(soak, admin, aside, 3000, 4),
      visitor(soak, SLOT, 1100),
    ];

    const restarts: RestartWindow[] = [];
    const restartAtMs = (MINUTES * 60_000) / 2;
    const restarting = (async () => {
      await new Promise((resolve) => setTimeout(resolve, restartAtMs));
      for (const name of RESTARTED) {
        const window: RestartWindow = { name, from: Date.now(), to: Number.NaN };
        log(`restarting ${name}`);
        await system.restart(name);
        window.to = Date.now();
        restarts.push(window);
        log(`${name} ready again after ${((window.to - window.from) / 1000).toFixed(1)} s`);
      }
    })();

    const minutes: Minute[] = [];
    for (let minute = 0; minute < MINUTES; minute += 1) {
      await new Promise((resolve) => setTimeout(resolve, startedAt + (minute + 1) * 60_000 - Date.now()));
      const usage = sampler.sample();
      const figures: Minute = { minute, usage, documents: await sizes.documents(), redis: await redisSize(redis, system.redisPrefix) };
      minutes.push(figures);
      printMinute(recorder, figures);
    }
    clearInterval(peaks);
    running = false;
    await Promise.all([...actors, restarting]);
    printTotals(recorder);

    log(`waiting for the counting folder (up to ${FOLD_WAIT_SECONDS} s)`);
    const folding = await waitForFolding(system, FOLD_WAIT_SECONDS, log);
    const stats = await admin.must<{ adRequests: number; confirmedDeliveries: number; clickedLinks: number }>(200, 'GET', '/api/workspace/stats');
    const placements = await admin.must<{ items: Array<{ slot: string; impressions: number }> }>(200, 'GET', '/api/workspace/placements');
    const figures: SoakFigures = {
      minutes: MINUTES,
      startedAt,
      replicas: REPLICAS >= 2 ? 2 : 1,
      publishers: PUBLISHERS,
      counted: soak.counted,
      totals: stats,
      impressionsRead: placements.items.find((item) => item.slot === SLOT)?.impressions ?? Number.NaN,
      foldingFinished: folding.finished,
      refusedValidKeys: soak.refusedValidKeys,
      restarts,
      rss: minutes.map((minute) => Object.fromEntries(Object.entries(minute.usage).map(([name, usage]) => [name, usage.rssMb]))),
    };
    const checks = judge(figures, recorder);
    printChecks(checks);
    const outDir = path.join(ROOT, '.data', 'soak');
    mkdirSync(outDir, { recursive: true });
    const outFile = path.join(outDir, `${system.runId}.json`);
    const answers = Object.fromEntries(recorder.endpoints().map((endpoint) => [endpoint, Object.fromEntries(recorder.totals.get(endpoint) ?? [])]));
    const latencies = minutes.map((minute) => Object.fromEntries(recorder.endpoints().map((endpoint) => [endpoint, recorder.latency(minute.minute, endpoint)])));
    writeFileSync(outFile, JSON.stringify({ figures, checks, answers, latencies, minutes }, null, 2));
    log(`figures written to ${path.relative(ROOT, outFile)}`);
    if (checks.some((check) => !check.pass)) process.exitCode = 1;
  } finally {
    redis.disconnect();
    await sizes.close();
    log('stopping the system and removing its databases, queues and keys');
    await stopReplicas(extra);
    await system.stop();
    await cleanUp(system);
  }
}

function printChecks(checks: Check[]): void {
  process.stdout.write(`checks\n${checks.map((check) => `  ${check.pass ? 'PASS' : 'MISS'}  ${check.name}: ${check.detail}`).join('\n')}\n`);
}

main().catch((error: unknown) => {
  log(`failed: ${(error as Error).stack ?? String(error)}`);
  process.exit(1);
});
