/**
 * The ad request limit (SPEC.md): 60 requests per publisher per minute, counted in Redis so every replica
 * shares the count. Window: fixed, 60 s, starting at the publisher's first request of the window (a Redis
 * counter with a TTL, as rate-limiter-flexible keeps it; the same script counts the ad request, see
 * @pilot/counting). Headers: the IETF httpapi RateLimit fields in
 * their widely deployed form (see services/allocation/docs/rate-limit.md):
 *   RateLimit-Limit: 60          RateLimit-Remaining: <left in this window>
 *   RateLimit-Reset: <seconds until the window ends>     RateLimit-Policy: 60;w=60
 * and, on 429, Retry-After with the same number of seconds as RateLimit-Reset.
 */
import { AD_REQUEST_WINDOW_SECONDS, AD_REQUESTS_PER_WINDOW } from '@pilot/contracts';

export const AD_REQUEST_LIMIT = { points: AD_REQUESTS_PER_WINDOW, windowSeconds: AD_REQUEST_WINDOW_SECONDS };

export interface LimitState {
  /** Requests consumed in the current window, this one included. */
  consumed: number;
  msBeforeReset: number;
}

export function secondsUntilReset(state: LimitState): number {
  return Math.max(1, Math.ceil(state.msBeforeReset / 1000));
}

export function rateLimitHeaders(state: LimitState): Record<string, string> {
  return {
    'RateLimit-Limit': String(AD_REQUESTS_PER_WINDOW),
    'RateLimit-Remaining': String(Math.max(0, AD_REQUESTS_PER_WINDOW - state.consumed)),
    'RateLimit-Reset': String(secondsUntilReset(state)),
    'RateLimit-Policy': `${AD_REQUESTS_PER_WINDOW};w=${AD_REQUEST_WINDOW_SECONDS}`,
  };
}
