/**
 * What became of a request that did not succeed, as bounded label values for the business counters:
 * `limited` (429), `refused` with the problem's stable code (4xx), or `failed` (everything else, 5xx).
 * Problem codes are constants of the code base, so `reason` cannot grow with the traffic.
 */
import { isInfrastructureError } from '../infrastructure-errors';
import { HttpError } from '../problems';

export type FailedAnswer = { outcome: 'limited' | 'refused' | 'failed'; reason: string };

export function outcomeOfError(error: unknown): FailedAnswer {
  if (error instanceof HttpError) {
    if (error.status === 429) return { outcome: 'limited', reason: error.code };
    if (error.status < 500) return { outcome: 'refused', reason: error.code };
    return { outcome: 'failed', reason: error.status === 503 ? 'unavailable' : 'error' };
  }
  return { outcome: 'failed', reason: isInfrastructureError(error) ? 'unavailable' : 'error' };
}
