/** When a failed load is tried again (components/RetryPanel.tsx): pure, so it is unit-tested. */
import { ApiError } from './api';

export const FIRST_RETRY_MS = 2_000;
export const MAX_RETRY_MS = 30_000;

/** The wait before automatic attempt number `attempt` (0-based). */
export function retryDelayMs(attempt: number, retryAfterSeconds: number | null): number {
  if (attempt === 0 && retryAfterSeconds) return Math.min(retryAfterSeconds * 1000, MAX_RETRY_MS);
  return Math.min(FIRST_RETRY_MS * 2 ** attempt, MAX_RETRY_MS);
}

/** Failures that waiting can fix; a 4xx other than 408/429 will answer the same again. */
export function isRetryable(error: unknown): boolean {
  if (!(error instanceof ApiError)) return true;
  return error.status >= 500 || error.status === 429 || error.status === 408;
}
