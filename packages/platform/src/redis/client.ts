/**
 * ioredis client tuned for a request path: no offline queue and one retry per command, so a Redis outage
 * fails the call at once (mapped to 503) instead of hanging; reconnection runs in the background with backoff.
 */
import { Redis } from 'ioredis';
import type { RedisTarget } from '../config';

export { Redis } from 'ioredis';

export interface RedisConnectionOptions {
  /**
   * How long one command may take before it fails (default 1 s, for a request path). Background work whose
   * commands carry a batch, such as the count folder, takes longer ones on its own connection.
   */
  commandTimeoutMs?: number;
}

export function createRedis(target: string | RedisTarget, connectionName: string, { commandTimeoutMs = 1000 }: RedisConnectionOptions = {}): Redis {
  const { url, sentinels = [], sentinelName } = typeof target === 'string' ? { url: target } : target;
  const options = {
    connectionName,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: commandTimeoutMs,
    lazyConnect: false,
    // Commands issued in the same event loop turn (concurrent requests) share one write to Redis.
    enableAutoPipelining: true,
    retryStrategy: (attempt: number) => Math.min(50 * 2 ** attempt, 2000),
  };
  const redis = sentinels.length > 0 ? new Redis({ ...options, ...credentialsOf(url), sentinels, name: sentinelName }) : new Redis(url, options);
  // Errors are reported through readiness and the failing calls; an unhandled 'error' event would crash.
  redis.on('error', () => undefined);
  return redis;
}

export async function waitForRedis(redis: Redis, timeoutMs = 10_000): Promise<void> {
  if (redis.status === 'ready') return;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Redis not ready within ${timeoutMs} ms`)), timeoutMs);
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

export async function pingRedis(redis: Redis): Promise<void> {
  const answer = await redis.ping();
  if (answer !== 'PONG') throw new Error('unexpected PING answer');
}

/** The credentials and database number of a Redis URL, for a connection through Sentinel. */
function credentialsOf(url: string): { username?: string; password?: string; db?: number } {
  const parsed = new URL(url);
  const db = Number(parsed.pathname.slice(1));
  return {
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(Number.isInteger(db) && db > 0 ? { db } : {}),
  };
}
