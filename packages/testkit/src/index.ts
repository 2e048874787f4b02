/**
 * Helpers for tests against real infrastructure: unique names so runs never see each other, the
 * environment a service needs to start in-process, and waiting on a condition with a deadline.
 */
import { randomBytes } from 'node:crypto';

export { buttonUpdate, confirmInBot, questionButton, startUpdate, type ChatType } from './bot-updates';
export { AOF_ALWAYS, OwnRedis, redisAnswers } from './own-redis';
export { waitFor, type WaitOptions } from './wait-for';
import { waitFor } from './wait-for';
export { reservedPort } from './ports';
export { runServiceMain } from './service-process';
export { TcpRelay } from './tcp-relay';
export { BotApiStandIn, startBotApiStandIn, type TakenMessage } from './bot-api-stand-in';
export { sentBytes, signedFor, signedWhenSent, type CallSigner, type SignedFor } from './signed-body';
export { scrapeMetrics, ScrapedMetrics, type Sample } from './scraped-metrics';

export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
}

export interface TestInfra {
  mongoUrl: string;
  amqpUrl: string;
  redisUrl: string;
  /** Exchange and queue prefix for this run. */
  exchange: string;
  /** Redis key prefix for this run. */
  redisPrefix: string;
  /** Appended to database names for this run. */
  runId: string;
  internalSecret: string;
  tokenSecret: string;
}

/** One isolated set of names per call; share it between the services of one test. */
export function testInfra(): TestInfra {
  const runId = uniqueName('t');
  return {
    mongoUrl: process.env.MONGO_URL ?? 'mongodb://127.0.0.1:27017/',
    amqpUrl: process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
    redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    exchange: `pilot.${runId}`,
    redisPrefix: `${runId}:`,
    runId,
    internalSecret: randomBytes(32).toString('base64url'),
    tokenSecret: randomBytes(32).toString('base64url'),
  };
}

/** The environment variables every service reads for its infrastructure, for this run. */
export function infraEnv(infra: TestInfra, service: string): NodeJS.ProcessEnv {
  return {
    NODE_ENV: 'test',
    PORT: '0',
    MONGO_URL: infra.mongoUrl,
    MONGO_DB: `${service.replace(/-/g, '_')}_${infra.runId}`,
    AMQP_URL: infra.amqpUrl,
    BUS_EXCHANGE: infra.exchange,
    REDIS_URL: infra.redisUrl,
    REDIS_KEY_PREFIX: infra.redisPrefix,
    INTERNAL_SECRET: infra.internalSecret,
    TOKEN_SECRET: infra.tokenSecret,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
  };
}

/**
 * Resolves once everything published before the call has reached `received` (one consumer queue, delivered
 * in order): `marker`, published now through `publish`, comes after all of it; it is taken out of
 * `received` again. For checking that no duplicate arrived without waiting out a fixed time.
 */
export async function deliveredSoFar<E extends { id: string }>(received: E[], marker: E, publish: (event: E) => Promise<void>): Promise<void> {
  await publish(marker);
  await waitFor(() => received.some((event) => event.id === marker.id), { message: 'the marker event delivered' });
  received.splice(
    received.findIndex((event) => event.id === marker.id),
    1,
  );
}

/** A clock tests can move; services read time only through a Clock. */
export class ManualClock {
  constructor(private current = new Date('2026-01-01T00:00:00.000Z').getTime()) {}
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current += ms;
  }
  set(at: Date | string): void {
    this.current = new Date(at).getTime();
  }
}

/** A deterministic pseudo-random generator (mulberry32) in [0, 1): the same seed, the same sequence. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
