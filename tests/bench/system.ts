/**
 * The benchmarked system: every service as its own process (as scripts/run-system.mjs starts them, with
 * the built dist/main.js), behind a real gateway, on real RabbitMQ, Redis and FerretDB, under names of
 * its own (databases `<service>_<run>`, exchange `pilot.<run>`, Redis prefix `<run>:`) and on free
 * ports, so it collides neither with `scripts/start.sh` nor with test runs. Plus, for the baseline, a
 * second gateway process whose site upstream is a trivial HTTP server.
 * Every process logs as configured (LOG_LEVEL info, like a deployment) into .data/bench/<run>/<name>.log.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { reservedPort } from '@pilot/testkit';

export const ROOT = path.resolve(__dirname, '..', '..');

export type ServiceName = 'publisher-identity' | 'campaign' | 'allocation' | 'tracking' | 'placement' | 'notification' | 'web';

const SERVICES: { name: ServiceName; gatewayVar: string; nodeOptions?: string }[] = [
  { name: 'publisher-identity', gatewayVar: 'IDENTITY_URLS' },
  { name: 'campaign', gatewayVar: 'CAMPAIGN_URLS' },
  { name: 'placement', gatewayVar: 'PLACEMENT_URLS' },
  // Its young generation as deployed (deploy/k8s, docker-compose.yml; decision 0058).
  { name: 'allocation', gatewayVar: 'ALLOCATION_URLS', nodeOptions: '--max-semi-space-size=4' },
  { name: 'tracking', gatewayVar: 'TRACKING_URLS' },
  // No bot token: it consumes the events and sends nothing, as a deployment without one does.
  { name: 'notification', gatewayVar: 'NOTIFICATION_URLS' },
  { name: 'web', gatewayVar: 'WEB_URLS' },
];

/** Every service the benchmark starts, by name. */
export const SERVICE_NAMES: readonly ServiceName[] = SERVICES.map((service) => service.name);

export const ADMIN_ID = '1000';

export interface BenchProcess {
  name: string;
  url: string;
  child: ChildProcess;
  env: NodeJS.ProcessEnv;
  entry: string;
}

export interface BenchSystem {
  runId: string;
  baseUrl: string;
  origin: string;
  /** The gateway whose site upstream is the trivial server (baseline). */
  baselineUrl: string;
  /** The gateway's operator port: /metrics and the readiness of every upstream replica. */
  gatewayOperatorUrl: string;
  webhookSecret: string;
  mongoUrl: string;
  redisUrl: string;
  amqpUrl: string;
  redisPrefix: string;
  exchange: string;
  dbOf(service: ServiceName): string;
  process(name: string): BenchProcess;
  /** Resident set size of a process, in bytes (from /proc). */
  rssOf(name: string): number;
  /** Process ids of the system's own processes, by name. */
  pids(): Record<string, number>;
  /** Stops and starts a process again, with `env` added to its environment when given (kept afterwards). */
  /** Restarts a process with these settings on top of its own (an undefined value removes a setting). */
  restart(name: string, env?: NodeJS.ProcessEnv): Promise<void>;
  /** The OTLP endpoint of a sink that accepts spans (started on first use). */
  tracingEndpoint(): Promise<string>;
  stop(): Promise<void>;
}

async function waitReady(url: string, timeoutMs: number, child: ChildProcess, name: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}); see its log`);
    try {
      const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) });
      last = await response.text();
      if (response.ok) return;
    } catch (error) {
      last = (error as Error).message;
    }
    if (Date.now() > deadline) throw new Error(`${name} not ready within ${timeoutMs} ms: ${last}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export async function startBenchSystem(options: { mongoUrl: string }): Promise<BenchSystem> {
  const runId = `bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const logDir = path.join(ROOT, '.data', 'bench', runId);
  mkdirSync(logDir, { recursive: true });
  const gatewayPort = await reservedPort();
  const baseUrl = `http://127.0.0.1:${gatewayPort}`;
  const webhookSecret = randomBytes(24).toString('base64url');
  const amqpUrl = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redisPrefix = `${runId}:`;
  const exchange = `pilot.${runId}`;
  const dbOf = (service: ServiceName) => `${service.replace(/-/g, '_')}_${runId}`;
  const shared: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
    PUBLIC_BASE_URL: baseUrl,
    ADMIN_ACCOUNT_IDS: ADMIN_ID,
    MONGO_URL: options.mongoUrl,
    AMQP_URL: amqpUrl,
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: redisPrefix,
    BUS_EXCHANGE: exchange,
    INTERNAL_SECRET: randomBytes(32).toString('base64url'),
    TOKEN_SECRET: randomBytes(32).toString('base64url'),
    TELEGRAM_WEBHOOK_SECRET: webhookSecret,
    // The set-up signs in a handful of accounts from one address.
    LOGIN_LIMIT_POINTS: '1000',
    // The set-up and the soak's load change records far faster than a person does: an administrator
    // approves hundreds of platforms in a minute, an owner rotates a key every few seconds.
    WORKSPACE_WRITE_LIMIT_POINTS: '1000000',
    KEY_ROTATION_LIMIT_POINTS: '1000000',
    // The snapshot of 10,000 active campaigns takes longer than the default 5 s on FerretDB (see
    // docs/performance.md); the restart with 10,000 campaigns is timed and printed.
    SNAPSHOT_TIMEOUT_MS: process.env.BENCH_SNAPSHOT_TIMEOUT_MS ?? '60000',
  };
  const processes = new Map<string, BenchProcess>();
  let stopping = false;

  const launch = (name: string, entry: string, env: NodeJS.ProcessEnv, url: string): BenchProcess => {
    const log = createWriteStream(path.join(logDir, `${name}.log`), { flags: 'a' });
    // BENCH_PROFILE=allocation,gateway: those processes write a V8 CPU profile into the run's folder on exit.
    const profiled = (process.env.BENCH_PROFILE ?? '').split(',').includes(name);
    const flags = profiled ? ['--cpu-prof', `--cpu-prof-dir=${path.join(logDir, 'profiles')}`, `--cpu-prof-name=${name}.${Date.now()}.cpuprofile`] : [];
    const child = spawn(process.execPath, [...flags, entry], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    child.on('exit', (code, signal) => {
      if (!stopping && processes.get(name)?.child === child) process.stderr.write(`[bench] ${name} exited (${signal ?? code}); see ${logDir}/${name}.log\n`);
    });
    const running = { name, url, child, env, entry };
    processes.set(name, running);
    return running;
  };

  const tracingEndpoint = async (): Promise<string> => {
    const running = processes.get('tracing-sink');
    if (running) return running.url;
    const port = await reservedPort();
    const sink = launch('tracing-sink', path.join(ROOT, 'tests', 'bench', 'trivial-upstream.mjs'), { PATH: process.env.PATH, PORT: String(port), KEEP_BODIES_IN: process.env.BENCH_TRACES_FILE }, `http://127.0.0.1:${port}`);
    await waitReady(sink.url, 10_000, sink.child, 'tracing-sink');
    return sink.url;
  };
  // BENCH_TRACING=1: every process traces every span and exports it over OTLP to a sink that accepts them.
  if (process.env.BENCH_TRACING === '1') Object.assign(shared, { OTEL_EXPORTER_OTLP_ENDPOINT: await tracingEndpoint(), OTEL_TRACES_SAMPLER: 'parentbased_always_on' });
  const gatewayOperatorPort = await reservedPort();
  const gatewayEnv: NodeJS.ProcessEnv = { ...shared, GATEWAY_PORT: String(gatewayPort), GATEWAY_OPERATOR_PORT: String(gatewayOperatorPort), UPSTREAM_TIMEOUT_MS: '10000' };
  try {
    let campaignUrl = '';
    let identityUrl = '';
    for (const service of SERVICES) {
      const port = await reservedPort();
      const url = `http://127.0.0.1:${port}`;
      const env = { ...shared, PORT: String(port), MONGO_DB: dbOf(service.name), CAMPAIGN_URL: campaignUrl || url, IDENTITY_URL: identityUrl || url, ...(service.nodeOptions ? { NODE_OPTIONS: service.nodeOptions } : {}) };
      if (service.name === 'publisher-identity') identityUrl = url;
      const running = launch(service.name, path.join(ROOT, 'services', service.name, 'dist', 'main.js'), env, url);
      gatewayEnv[service.gatewayVar] = url;
      // Allocation and tracking load campaign's snapshot at start: campaign must be up first.
      if (service.name === 'campaign') {
        campaignUrl = url;
        await waitReady(url, 60_000, running.child, service.name);
      }
    }
    for (const running of processes.values()) await waitReady(running.url, 90_000, running.child, running.name);
    const gateway = launch('gateway', path.join(ROOT, 'services', 'gateway', 'dist', 'main.js'), gatewayEnv, baseUrl);
    await waitReady(baseUrl, 60_000, gateway.child, 'gateway');

    // Baseline: the same gateway code, its site upstream a trivial server (GET anything: a small JSON).
    const trivialPort = await reservedPort();
    const trivial = launch('trivial-upstream', path.join(ROOT, 'tests', 'bench', 'trivial-upstream.mjs'), { PATH: process.env.PATH, PORT: String(trivialPort) }, `http://127.0.0.1:${trivialPort}`);
    await waitReady(trivial.url, 10_000, trivial.child, 'trivial-upstream');
    const baselinePort = await reservedPort();
    const baselineUrl = `http://127.0.0.1:${baselinePort}`;
    const baseline = launch('gateway-baseline', path.join(ROOT, 'services', 'gateway', 'dist', 'main.js'), { ...gatewayEnv, GATEWAY_PORT: String(baselinePort), GATEWAY_OPERATOR_PORT: String(await reservedPort()), WEB_URLS: trivial.url }, baselineUrl);
    await waitReady(baselineUrl, 60_000, baseline.child, 'gateway-baseline');

    return {
      runId,
      baseUrl,
      origin: new URL(baseUrl).origin,
      baselineUrl,
      gatewayOperatorUrl: `http://127.0.0.1:${gatewayOperatorPort}`,
      webhookSecret,
      mongoUrl: options.mongoUrl,
      redisUrl,
      amqpUrl,
      redisPrefix,
      exchange,
      dbOf,
      process(name) {
        const running = processes.get(name);
        if (!running) throw new Error(`no process ${name}`);
        return running;
      },
      rssOf(name) {
        const pid = processes.get(name)?.child.pid;
        const status = readFileSync(`/proc/${pid}/status`, 'utf8');
        const kb = /VmRSS:\s+(\d+)\s+kB/.exec(status)?.[1];
        return Number(kb) * 1024;
      },
      pids() {
        return Object.fromEntries([...processes.values()].map((running) => [running.name, running.child.pid ?? 0]));
      },
      async restart(name, env) {
        const old = processes.get(name);
        if (!old) throw new Error(`no process ${name}`);
        processes.delete(name);
        await stopChild(old.child);
        const running = launch(name, old.entry, { ...old.env, ...env }, old.url);
        await waitReady(running.url, 90_000, running.child, name);
      },
      tracingEndpoint,
      async stop() {
        stopping = true;
        await Promise.all([...processes.values()].reverse().map((running) => stopChild(running.child)));
      },
    };
  } catch (error) {
    stopping = true;
    await Promise.all([...processes.values()].map((running) => stopChild(running.child)));
    throw error;
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}
