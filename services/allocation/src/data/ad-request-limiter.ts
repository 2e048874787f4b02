/**
 * The per-publisher ad request counter in Redis (rate-limiter-flexible), shared by every replica.
 * A Redis failure is a 503, never a silent pass and never a 500.
 */
import { ServiceUnavailableError, withDeadline } from '@pilot/faults';
import type { Redis } from '@pilot/redis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AD_REQUESTS_PER_WINDOW, WINDOW_SECONDS, type LimitState } from '../domain/rate-limit';

export type LimitDecision = { allowed: true; state: LimitState } | { allowed: false; state: LimitState };

export class AdRequestLimiter {
  private readonly limiter: RateLimiterRedis;

  constructor(
    redis: Redis,
    prefix: string,
    private readonly timeoutMs: number,
  ) {
    this.limiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${prefix}ratelimit:ad`,
      points: AD_REQUESTS_PER_WINDOW,
      duration: WINDOW_SECONDS,
      rejectIfRedisNotReady: true,
    });
  }

  async consume(publisherId: number): Promise<LimitDecision> {
    try {
      const result = await withDeadline(this.limiter.consume(String(publisherId), 1), this.timeoutMs, 'redis');
      return { allowed: true, state: stateOf(result) };
    } catch (error) {
      if (error instanceof RateLimiterRes) return { allowed: false, state: stateOf(error) };
      if (error instanceof ServiceUnavailableError) throw error;
      throw new ServiceUnavailableError('redis', `rate limit: ${(error as Error).message}`);
    }
  }
}

function stateOf(result: RateLimiterRes): LimitState {
  return { remaining: result.remainingPoints, msBeforeReset: result.msBeforeNext };
}
