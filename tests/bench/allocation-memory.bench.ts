/**
 * Allocation's memory with few and many active campaigns, and its CPU per ad request, standalone: a
 * stand-in campaign service serves the snapshot, publishers are written into Redis' key read model as
 * publisher-identity writes them, and allocation runs from its build (`NODE_ENV=production`, as
 * scripts/run-system.mjs starts it) on the machine's Redis and RabbitMQ. Ad requests go straight to
 * allocation, signed as the gateway signs them. For each process it prints the RSS and V8 heap once the
 * snapshot is loaded and again after the load, and allocation's CPU ms per ad request (its idle CPU over
 * the same time taken off).
 *
 *   node --import tsx tests/bench/allocation-memory.bench.ts
 *
 * ALLOCATION_ENTRIES: comma-separated `dist/main.js` files to compare side by side (default: this checkout's);
 * each runs with every campaign count, in the order A B B A per count so drift cancels out.
 * WITH_GATEWAY=1 puts the gateway of the same build in front (requests then go through it, unsigned) and
 * prints its CPU ms per request too.
 * CAMPAIGN_COUNTS (10,10000), LOAD_SECONDS (10), CONNECTIONS (16), AMQP_URL, REDIS_URL; ALLOCATION_NODE_FLAGS
 * adds flags to allocation's node, e.g. `--cpu-prof --cpu-prof-dir=.data/profiles` (tests/bench/profile-summary.ts reads it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { createRedis, signedHeaders, waitForRedis } from '../../packages/platform/src';
import { generateApiKey, hashApiKey, KeyReadModel } from '../../packages/publisher-keys/src';
import { sampleCpu } from './cpu';

const ROOT = path.resolve(__dirname, '../..');
const ENTRIES = (process.env.ALLOCATION_ENTRIES ?? path.join(ROOT, 'services/allocation/dist/main.js')).split(',').filter(Boolean);
const COUNTS = (process.env.CAMPAIGN_COUNTS ?? '10,10000').split(',').map(Number);
const LOAD_SECONDS = Number(process.env.LOAD_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 16);
const PUBLISHERS = 200;
const IDLE_SECONDS = 3;
const WITH_GATEWAY = process.env.WITH_GATEWAY === '1';
const LANGUAGES = ['en', 'tr', 'ru', 'ar', 'zh', 'es'];
const runId = `allocmem_${randomBytes(4).toString('hex')}`;
const prefix = `${runId}:`;
const internalSecret = randomBytes(32).toString('base64url');

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** Active campaigns as the campaign service's snapshot lists them; the first ten in `en`, the rest spread. */
function campaigns(count: number) {
  return Array.from({ length: count }, (_, i) => ({
    campaignId: 1 + i,
    ownerAccountId: String(40_000 + (i % 100)),
    status: 'active',
    format: i < 10 || i % 4 !== 3 ? 'bot' : 'channel',
    language: i < 10 ? 'en' : (LANGUAGES[i % LANGUAGES.length] as string),
    title: `Campaign ${i}`,
    text: `The message body of campaign ${i}, about as long as an ordinary creative's text.`,
    buttonText: 'Open',
    imageUrl: null,
    destinationUrl: `https://advertiser.example/landing?b=${i}`,
    name: `Campaign ${i}`,
    version: 3,
  }));
}

async function snapshotServer(): Promise<{ server: Server; url: string; serve(count: number): void }> {
  let body = '{"items":[]}';
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    serve(count) {
      body = JSON.stringify({ items: campaigns(count) });
    },
  };
}

function memoryOf(pid: number): { rss: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return { rss: Number(/VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1] ?? 0) * 1024 };
}

/** nodejs_heap_size_used_bytes and total from allocation's /metrics. */
async function heapOf(url: string): Promise<{ used: number; total: number }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const value = (name: string) => Number(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)`, 'm').exec(text)?.[1] ?? Number.NaN);
  if (process.env.HEAP_SPACES === '1') {
    const spaces = [...text.matchAll(/^nodejs_heap_space_size_total_bytes\{space="([a-z_]+)".*\} (\S+)/gm)].map((m) => `${m[1]} ${mb(Number(m[2]))}`);
    process.stderr.write(`heap spaces (total): ${spaces.join(', ')}; external ${mb(value('nodejs_external_memory_bytes'))}\n`);
  }
  return { used: value('nodejs_heap_size_used_bytes'), total: value('nodejs_heap_size_total_bytes') };
}

const freePort = () => 20_000 + Math.floor(Math.random() * 20_000);

/** Starts `node [flags] <main.js>` with `env` and waits for its /readyz; `command` may start with node flags. */
async function startProcess(command: string, env: NodeJS.ProcessEnv, url: string): Promise<ChildProcess> {
  // An entry may start with node flags of its own: `--max-semi-space-size=4 services/allocation/dist/main.js`.
  const words = command.split(' ').filter(Boolean);
  const flags = [...(process.env.ALLOCATION_NODE_FLAGS ?? '').split(' ').filter(Boolean), ...words.slice(0, -1)];
  const child = spawn(process.execPath, [...flags, words.at(-1) as string], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, NODE_ENV: 'production', LOG_LEVEL: 'warn', HOST: '127.0.0.1', INTERNAL_SECRET: internalSecret, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const ready = await fetch(`${url}/readyz`).then((answer) => answer.ok, () => false);
    if (ready) return child;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGTERM');
  throw new Error(`${command} not ready within 60 s`);
}

async function startAllocation(entry: string, campaignUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = {
    PORT: String(port),
    PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
    CAMPAIGN_URL: campaignUrl,
    AMQP_URL: process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_KEY_PREFIX: prefix,
    BUS_EXCHANGE: `pilot.${runId}`,
    TOKEN_SECRET: randomBytes(32).toString('base64url'),
    SNAPSHOT_TIMEOUT_MS: '60000',
  };
  return { child: await startProcess(entry, env, url), url };
}

/**
 * The gateway of the same build in front of allocation (WITH_GATEWAY=1); its other upstreams are the
 * stand-in campaign service, which answers anything.
 */
async function startGateway(entry: string, allocationUrl: string, standInUrl: string): Promise<{ child: ChildProcess; url: string }> {
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const gatewayMain = (entry.split(' ').at(-1) as string).replace(/services\/allocation\/dist\/main\.js$/, 'services/gateway/dist/main.js');
  const env = {
    GATEWAY_PORT: String(port),
    PUBLIC_BASE_URL: url,
    REDIS_URL: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_KEY_PREFIX: prefix,
    ALLOCATION_URLS: allocationUrl,
    ...Object.fromEntries(['IDENTITY_URLS', 'CAMPAIGN_URLS', 'TRACKING_URLS', 'PLACEMENT_URLS', 'NOTIFICATION_URLS', 'WEB_URLS'].map((name) => [name, standInUrl])),
  };
  return { child: await startProcess(gatewayMain, env, url), url };
}

async function load(url: string, keys: string[], signed: boolean): Promise<{ requests: number; statuses: Record<string, number> }> {
  let next = 0;
  const result = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: LOAD_SECONDS,
    requests: [
      {
        method: 'GET',
        setupRequest: (request) => {
          const pathAndQuery = '/api/network/ad?language=en';
          const key = keys[next++ % keys.length] as string;
          const headers = { authorization: `Bearer ${key}`, ...(signed ? signedHeaders(internalSecret, { method: 'GET', url: pathAndQuery }) : {}) };
          return { ...request, path: pathAndQuery, headers };
        },
      },
    ],
  });
  const statuses: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = stat.count ?? 0;
  return { requests: Object.values(statuses).reduce((a, b) => a + b, 0), statuses };
}

/** The headers of one ad answer: how many, and their bytes as sent (what the next hop parses and copies). */
async function oneAnswer(url: string, key: string, signed: boolean): Promise<string> {
  const pathAndQuery = '/api/network/ad?language=en';
  const answer = await fetch(`${url}${pathAndQuery}`, {
    headers: { authorization: `Bearer ${key}`, ...(signed ? signedHeaders(internalSecret, { method: 'GET', url: pathAndQuery }) : {}) },
  });
  const body = await answer.text();
  const headers = [...answer.headers.entries()];
  const bytes = headers.reduce((sum, [name, value]) => sum + name.length + value.length + 4, 0);
  return `${answer.status}: ${headers.length} headers, ${bytes} B; body ${Buffer.byteLength(body)} B`;
}

async function main(): Promise<void> {
  const redis = createRedis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', 'bench');
  await waitForRedis(redis);
  const model = new KeyReadModel(redis, prefix);
  const keys: string[] = [];
  for (let i = 0; i < PUBLISHERS; i += 1) {
    const key = generateApiKey();
    keys.push(key);
    await model.writePublisher({ publisherId: 1 + i, ownerAccountId: String(2001 + (i % 4)), type: 'bot', status: 'approved', keyHash: hashApiKey(key), version: 1, incarnation: runId });
  }
  const campaign = await snapshotServer();
  const rows: string[][] = [['entry', 'campaigns', 'one answer', 'RSS ready', 'heap used/total ready', 'RSS after load', 'heap used/total after', WITH_GATEWAY ? 'CPU ms/request, allocation + gateway' : 'CPU ms/request', 'req/s', 'statuses']];
  // The limit counters are reset once a second so no request is refused for the limit (docs/performance.md).
  const counters = keys.map((_, i) => `${prefix}ratelimit:ad:${1 + i}`);
  const resets = setInterval(() => void redis.del(...counters).catch(() => undefined), 1000);
  try {
    for (const count of COUNTS) {
      campaign.serve(count);
      const order = ENTRIES.length > 1 ? [...ENTRIES, ...[...ENTRIES].reverse()] : ENTRIES;
      for (const entry of order) {
        const { child, url } = await startAllocation(entry, campaign.url);
        const gateway = WITH_GATEWAY ? await startGateway(entry, url, campaign.url).catch((error: unknown) => (child.kill('SIGTERM'), Promise.reject(error))) : null;
        try {
          await new Promise((resolve) => setTimeout(resolve, 1000));
          const readyRss = memoryOf(child.pid as number).rss;
          const readyHeap = await heapOf(url);
          const answer = await oneAnswer(gateway ? gateway.url : url, keys[0] as string, !gateway);
          // Each process's CPU with nothing asked (the broker's heartbeats, probes, timers) is taken off the load's.
          const pids = { allocation: child.pid as number, ...(gateway ? { gateway: gateway.child.pid as number } : {}) };
          const cpuOf = () => sampleCpu(pids);
          const idleFrom = { cpu: cpuOf(), at: performance.now() };
          await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1000));
          const idleTo = { cpu: cpuOf(), at: performance.now() };
          const answered = await load(gateway ? gateway.url : url, keys, !gateway);
          const loadTo = { cpu: cpuOf(), at: performance.now() };
          const perRequest = (name: keyof typeof pids) => {
            const idlePerMs = ((idleTo.cpu[name] as number) - (idleFrom.cpu[name] as number)) / (idleTo.at - idleFrom.at);
            return ((loadTo.cpu[name] as number) - (idleTo.cpu[name] as number) - idlePerMs * (loadTo.at - idleTo.at)) / answered.requests;
          };
          const cpu = `${perRequest('allocation').toFixed(3)}${gateway ? ` + ${perRequest('gateway' as keyof typeof pids).toFixed(3)}` : ''}`;
          const afterRss = memoryOf(child.pid as number).rss;
          const afterHeap = await heapOf(url);
          rows.push([
            entry.replace(`${ROOT}/`, ''),
            String(count),
            answer,
            `${mb(readyRss)} MB`,
            `${mb(readyHeap.used)}/${mb(readyHeap.total)} MB`,
            `${mb(afterRss)} MB`,
            `${mb(afterHeap.used)}/${mb(afterHeap.total)} MB`,
            cpu,
            (answered.requests / LOAD_SECONDS).toFixed(0),
            Object.entries(answered.statuses).map(([code, n]) => `${code}:${n}`).join(' '),
          ]);
          process.stderr.write(`${rows.at(-1)?.join('  ')}\n`);
        } finally {
          for (const running of [gateway?.child, child]) {
            if (!running) continue;
            running.kill('SIGTERM');
            await new Promise((resolve) => running.once('exit', resolve));
          }
        }
      }
    }
  } finally {
    clearInterval(resets);
    campaign.server.close();
    const names = await redis.keys(`${prefix}*`);
    for (let i = 0; i < names.length; i += 500) await redis.del(...names.slice(i, i + 500));
    redis.disconnect();
  }
  const widths = (rows[0] as string[]).map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length)));
  process.stdout.write(`${rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ')).join('\n')}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
