/**
 * ioredis client tuned for a request path: no offline queue and one retry per command, so a Redis outage
 * fails the call at once (mapped to 503) instead of hanging; reconnection runs in the background with backoff.
 */
import { Redis } from 'ioredis';

export { Redis } from 'ioredis';

export interface RedisConnectionOptions {
  /**
   * How long one command may take before it fails (default 1 s, for a request path). Background work whose
   * commands carry a batch, such as the count folder, takes longer ones on its own connection.
   */
  commandTimeoutMs?: number;
}

export function createRedis(url: string, connectionName: string, { commandTimeoutMs = 1000 }: RedisConnectionOptions = {}): Redis {
  const redis = new Redis(url, {
    connectionName,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: commandTimeoutMs,
    lazyConnect: false,
    // Commands issued in the same event loop turn (concurrent requests) share one write to Redis.
    enableAutoPipelining: true,
    retryStrategy: (attempt) => Math.min(50 * 2 ** attempt, 2000),
  });
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
