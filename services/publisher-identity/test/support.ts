import { Bus } from '@pilot/messaging';
import type { KnownEvent } from '@pilot/contracts';
import { createLogger, createRedis, signedHeaders, waitForRedis, type Redis } from '@pilot/platform';
import { KeyReadModel } from '@pilot/publisher-keys';
import { confirmInBot, infraEnv, ManualClock, signedFor, testInfra, type TestInfra } from '@pilot/testkit';
import request from 'supertest';
import { loadConfig } from '../src/config';
import { start, type RunningIdentity } from '../src/start';

export const ADMIN = { accountId: '1001', admin: true };
export const OWNER = { accountId: '2002', admin: false };
export const STRANGER = { accountId: '3003', admin: false };
export const WEBHOOK_SECRET = 'test-webhook-secret-0123456789';

export type Who = { accountId: string; admin: boolean } | null;
type Method = 'get' | 'post' | 'delete';

export interface Harness {
  infra: TestInfra;
  env: NodeJS.ProcessEnv;
  clock: ManualClock;
  service: RunningIdentity;
  redis: Redis;
  keys: KeyReadModel;
  /** Events seen on the bus by an observer queue bound to every publisher event type. */
  events: KnownEvent[];
  /** A call as the gateway forwards it: signed, with the caller's identity and client address. */
  call(method: Method, path: string, who: Who, options?: { clientIp?: string; cookie?: string; baseUrl?: string }): request.Test;
  /** Starts one more replica on the same database, Redis prefix and exchange. */
  replica(): Promise<RunningIdentity>;
  stop(): Promise<void>;
}

export async function startHarness(extra: Record<string, string> = {}, logLines?: string[]): Promise<Harness> {
  const infra = testInfra();
  const clock = new ManualClock(new Date('2026-06-01T12:00:00.000Z').getTime());
  // With `logLines`, everything the service logs (at trace level) is kept there.
  const logger = logLines
    ? createLogger({ service: 'identity-test', level: 'trace', destination: { write: (line: string) => void logLines.push(line) } })
    : createLogger({ service: 'identity-test', level: 'silent' });
  const events: KnownEvent[] = [];
  const observer = new Bus({ url: infra.amqpUrl, exchange: infra.exchange, logger });
  await observer.ready();
  await observer.subscribeDurable({
    name: 'observer',
    eventTypes: ['publisher.submitted', 'publisher.approved', 'publisher.paused', 'publisher.rejected', 'publisher.key_rotated'],
    handler: async (event) => {
      events.push(event);
    },
  });
  const env: NodeJS.ProcessEnv = {
    ...infraEnv(infra, 'publisher-identity'),
    ADMIN_ACCOUNT_IDS: ADMIN.accountId,
    TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET,
    PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
    READ_MODEL_REPAIR_INTERVAL_MS: '0',
    // Tests generate keys far faster than a person; the limit has its own test.
    KEY_ROTATION_LIMIT_POINTS: '100000',
    ...extra,
  };
  const service = await start(loadConfig(env), logger, { clock });
  const replicas: RunningIdentity[] = [];
  const redis = createRedis(infra.redisUrl, 'identity-test');
  await waitForRedis(redis);
  return {
    infra,
    env,
    clock,
    service,
    redis,
    keys: new KeyReadModel(redis, infra.redisPrefix),
    events,
    call(method, path, who, options = {}) {
      const signedAs = { accountId: who?.accountId ?? null, admin: who?.admin ?? false, clientIp: options.clientIp ?? '198.51.100.7' };
      const test = signedFor(request(options.baseUrl ?? service.url)[method](path), method, path, signedAs, (call) => signedHeaders(infra.internalSecret, call));
      if (options.cookie) test.set('Cookie', options.cookie);
      return test;
    },
    async replica() {
      const other = await start(loadConfig(env), logger, { clock });
      replicas.push(other);
      return other;
    },
    async stop() {
      for (const replica of replicas) await replica.stop();
      await service.stop();
      await observer.close();
      redis.disconnect();
    },
  };
}

/** The `name=value` of a Set-Cookie header for `name`, and the whole header line. */
export function cookieFrom(response: request.Response, name: string): { pair: string; value: string; line: string } | null {
  const raw = response.headers['set-cookie'] as unknown;
  const lines = Array.isArray(raw) ? (raw as string[]) : typeof raw === 'string' ? [raw] : [];
  for (const line of lines) {
    const [pair] = line.split(';');
    if (pair && pair.startsWith(`${name}=`)) return { pair, value: pair.slice(name.length + 1), line };
  }
  return null;
}

/** Signs `accountId` in as a browser does (login request, the bot's Confirm, the poll): its session cookie. */
export async function signedInSession(h: Harness, accountId: string): Promise<{ pair: string; value: string }> {
  const created = await h.call('post', '/api/auth/login', null).expect(201);
  const binding = cookieFrom(created, 'pilot_login')!;
  const post = async (update: Record<string, unknown>) =>
    (await h.call('post', '/api/auth/telegram-webhook', null).set('X-Telegram-Bot-Api-Secret-Token', WEBHOOK_SECRET).send(update).expect(200)).body as unknown;
  await confirmInBot(post, (created.body as { code: string }).code, accountId);
  const confirmed = await h.call('get', `/api/auth/login/${(created.body as { requestId: string }).requestId}`, null, { cookie: binding.pair }).expect(200);
  return cookieFrom(confirmed, 'pilot_session')!;
}
