/**
 * A fixed-window limit in Redis (rate-limiter-flexible), shared by every replica: `points` per
 * `windowSeconds` per key. Redis trouble is a ServiceUnavailableError (503), never a free pass and never a 500.
 */
import { ServiceUnavailableError, withDeadline } from '../infrastructure-errors';
import type { Redis } from 'ioredis';
import type * as RateLimiterFlexible from 'rate-limiter-flexible';
import type { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

/**
 * rate-limiter-flexible is required when the first limiter is made, not when the platform is: most
 * processes (allocation, tracking) never make one, and it is 31 modules to hold in memory.
 */
function rateLimiterFlexible(): typeof RateLimiterFlexible {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('rate-limiter-flexible') as typeof RateLimiterFlexible;
}

export interface LimitDecision {
  allowed: boolean;
  /** Points left in the current window (0 when refused). */
  remaining: number;
  /** Milliseconds until the window ends. */
  msBeforeReset: number;
  /** Whole seconds a refused caller should wait (at least 1). */
  retryAfterSeconds: number;
}

export interface RedisLimiterOptions {
  /** Full key prefix, e.g. `${REDIS_KEY_PREFIX}identity:login`. */
  keyPrefix: string;
  points: number;
  windowSeconds: number;
  /** A Redis call slower than this is a 503 (default 1000 ms). */
  timeoutMs?: number;
}

export class RedisLimiter {
  private readonly limiter: RateLimiterRedis;
  private readonly refusal: typeof RateLimiterRes;
  private readonly timeoutMs: number;

  constructor(redis: Redis, options: RedisLimiterOptions) {
    this.timeoutMs = options.timeoutMs ?? 1000;
    const { RateLimiterRedis, RateLimiterRes } = rateLimiterFlexible();
    this.refusal = RateLimiterRes;
    this.limiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: options.keyPrefix,
      points: options.points,
      duration: options.windowSeconds,
      rejectIfRedisNotReady: true,
    });
  }

  async consume(key: string): Promise<LimitDecision> {
    try {
      return decisionOf(true, await withDeadline(this.limiter.consume(key, 1), this.timeoutMs, 'redis'));
    } catch (outcome) {
      if (outcome instanceof this.refusal) return decisionOf(false, outcome);
      if (outcome instanceof ServiceUnavailableError) throw outcome;
      throw new ServiceUnavailableError('redis', `limit ${this.limiter.keyPrefix} unavailable: ${(outcome as Error)?.message ?? 'unknown'}`);
    }
  }
}

function decisionOf(allowed: boolean, result: RateLimiterRes): LimitDecision {
  return {
    allowed,
    remaining: Math.max(0, result.remainingPoints),
    msBeforeReset: result.msBeforeNext,
    retryAfterSeconds: Math.max(1, Math.ceil(result.msBeforeNext / 1000)),
  };
}
