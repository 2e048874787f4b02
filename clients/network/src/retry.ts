/** The bounded backoff of the ad request: honours Retry-After, never waits past the budget. */

export interface RetryPolicy {
  /** Requests at most, the first one included. Default 3; 1 disables retries. */
  maxAttempts: number;
  /** Total time spent waiting between attempts, at most (ms). Default 10 000. */
  maxTotalWaitMs: number;
  /** First backoff when the answer has no Retry-After (ms); doubles each time, with full jitter. Default 500. */
  baseDelayMs: number;
  /** Largest backoff without Retry-After (ms). Default 5 000. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = { maxAttempts: 3, maxTotalWaitMs: 10_000, baseDelayMs: 500, maxDelayMs: 5_000 };

/** Retry-After as seconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3); null when absent or invalid. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | null {
  if (value === null) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

/**
 * How long to wait before attempt `attempt + 1` after attempt `attempt` (1-based) failed with 429 or 503,
 * or null to give up: attempts used up, or the wait would take the total past the budget. Retry-After is a
 * floor, never shortened: when it does not fit in the budget the client gives up at once instead of
 * asking early.
 */
export function nextDelayMs(
  policy: RetryPolicy,
  attempt: number,
  waitedMs: number,
  retryAfterSeconds: number | null,
  random: () => number = Math.random,
): number | null {
  if (attempt >= policy.maxAttempts) return null;
  const delay =
    retryAfterSeconds !== null
      ? retryAfterSeconds * 1000
      : Math.round(random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1)));
  if (waitedMs + delay > policy.maxTotalWaitMs) return null;
  return delay;
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
