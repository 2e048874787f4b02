/**
 * Benchmark (prints figures, asserts nothing): what the gateway's session cache (SESSION_CACHE_MS)
 * saves a workspace call. Two gateways in front of the same publisher-identity (real
 * FerretDB, Redis, RabbitMQ), one with SESSION_CACHE_MS=0 (publisher-identity asked on every call) and one
 * with the default (60 s: one EXISTS in Redis instead), take sequential GETs with one signed-in session,
 * interleaved call by call so both see the same machine:
 * - GET /api/workspace/campaigns, its upstream a trivial in-process server: the session step alone;
 * - GET /api/workspace/publishers, publisher-identity's real list page.
 * Everything runs in this one process (sequential calls, so nothing waits for another's CPU); the figures
 * are for comparing the two columns, not for the targets of docs/performance.md.
 *
 *   MONGO_URL=mongodb://127.0.0.1:27028/ AMQP_URL=amqp://... node --import tsx tests/bench/session-cache.bench.ts [calls=200]
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { createLogger } from '@pilot/platform';
import { confirmInBot, infraEnv, scrapeMetrics, testInfra } from '@pilot/testkit';
import { loadConfig as gatewayConfig } from '../../services/gateway/src/config';
import { start as startGateway, type RunningGateway } from '../../services/gateway/src/start';
import { loadConfig as identityConfig } from '../../services/publisher-identity/src/config';
import { start as startIdentity } from '../../services/publisher-identity/src/start';

const CALLS = Number(process.argv[2] ?? 200);
const WARM_UP = 20;
const WEBHOOK_SECRET = 'bench-webhook-secret-0123456789';
const ACCOUNT_ID = '7007';

function percentile(sorted: number[], p: number): number {
  const rank = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, rank)] ?? Number.NaN;
}

function summary(durations: number[]): string {
  const sorted = [...durations].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
  return `p50 ${percentile(sorted, 50).toFixed(2)} ms, p95 ${percentile(sorted, 95).toFixed(2)} ms, mean ${mean.toFixed(2)} ms`;
}

async function main(): Promise<void> {
  const infra = testInfra();
  const logger = createLogger({ service: 'bench', level: 'silent' });
  const trivial = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end('{"items":[]}');
  });
  await new Promise<void>((resolve) => trivial.listen(0, '127.0.0.1', resolve));
  const trivialUrl = `http://127.0.0.1:${(trivial.address() as AddressInfo).port}`;

  const identity = await startIdentity(
    identityConfig({
      ...infraEnv(infra, 'publisher-identity'),
      PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
      TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET,
      READ_MODEL_REPAIR_INTERVAL_MS: '0',
    }),
    logger,
  );
  const gatewayWith = (sessionCacheMs: string | undefined): Promise<RunningGateway> =>
    startGateway(
      gatewayConfig({
        NODE_ENV: 'test',
        GATEWAY_PORT: '0',
        INTERNAL_SECRET: infra.internalSecret,
        PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
        IDENTITY_URLS: identity.url,
        CAMPAIGN_URLS: trivialUrl,
        ...Object.fromEntries(['ALLOCATION', 'TRACKING', 'PLACEMENT', 'NOTIFICATION', 'WEB'].map((name) => [`${name}_URLS`, trivialUrl])),
        REDIS_URL: infra.redisUrl,
        REDIS_KEY_PREFIX: infra.redisPrefix,
        ...(sessionCacheMs === undefined ? {} : { SESSION_CACHE_MS: sessionCacheMs }),
      }),
      logger,
    );
  const uncached = await gatewayWith('0');
  const cached = await gatewayWith(undefined);

  try {
    const origin = 'http://127.0.0.1:8080';
    const login = await fetch(`${uncached.url}/api/auth/login`, { method: 'POST', headers: { origin } });
    const binding = (login.headers.getSetCookie()[0] ?? '').split(';')[0]!;
    const { requestId, code } = (await login.json()) as { requestId: string; code: string };
    await confirmInBot(
      async (update) =>
        (
          await fetch(`${uncached.url}/api/auth/telegram-webhook`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': WEBHOOK_SECRET },
            body: JSON.stringify(update),
          })
        ).json(),
      code,
      ACCOUNT_ID,
    );
    const poll = await fetch(`${uncached.url}/api/auth/login/${requestId}`, { headers: { cookie: binding } });
    const cookie = poll.headers
      .getSetCookie()
      .map((line) => line.split(';')[0]!)
      .find((pair) => pair.startsWith('pilot_session='));
    if (!cookie) throw new Error(`no session cookie: ${poll.status} ${await poll.text()}`);

    const resolves = async () => (await scrapeMetrics(identity.url)).value('http_request_duration_seconds_count', { route: '/internal/sessions/resolve' });
    const call = async (gateway: RunningGateway, path: string): Promise<number> => {
      const started = performance.now();
      const response = await fetch(`${gateway.url}${path}`, { headers: { cookie } });
      await response.arrayBuffer();
      const took = performance.now() - started;
      if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
      return took;
    };

    console.log(`session cache benchmark: ${CALLS} sequential calls per column (after ${WARM_UP} to warm up), interleaved`);
    for (const path of ['/api/workspace/campaigns', '/api/workspace/publishers']) {
      const times = { uncached: [] as number[], cached: [] as number[] };
      const asked = { uncached: 0, cached: 0 };
      for (let i = 0; i < WARM_UP; i += 1) {
        await call(uncached, path);
        await call(cached, path);
      }
      for (let i = 0; i < CALLS; i += 1) {
        // Which goes first alternates, so neither always follows the other's work.
        for (const which of i % 2 === 0 ? (['uncached', 'cached'] as const) : (['cached', 'uncached'] as const)) {
          const before = await resolves();
          times[which].push(await call(which === 'cached' ? cached : uncached, path));
          asked[which] += (await resolves()) - before;
        }
      }
      console.log(`GET ${path}`);
      console.log(`  SESSION_CACHE_MS=0     ${summary(times.uncached)}; publisher-identity asked ${asked.uncached} times`);
      console.log(`  SESSION_CACHE_MS=60000 ${summary(times.cached)}; publisher-identity asked ${asked.cached} times`);
    }
  } finally {
    await cached.stop();
    await uncached.stop();
    await identity.stop();
    trivial.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
