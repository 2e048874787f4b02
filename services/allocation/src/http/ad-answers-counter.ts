import { counterIn, outcomeOfError, type Registry } from '@pilot/http-kit';

export type AdAnswersCounter = { filled(): void; empty(): void; failed(error: unknown): void };

/**
 * `pilot_ad_answers_total{outcome, reason}`: filled (200), empty (204), limited (429), refused (4xx, by
 * problem code: invalid_key, publisher_not_approved, invalid_language) or failed (5xx: unavailable, error).
 */
export function adAnswersCounter(registry: Registry): AdAnswersCounter {
  const answers = counterIn(registry, 'pilot_ad_answers_total', 'Answers to ad requests by outcome and reason', ['outcome', 'reason']);
  return {
    filled: () => answers.inc({ outcome: 'filled', reason: 'none' }),
    empty: () => answers.inc({ outcome: 'empty', reason: 'none' }),
    failed: (error) => answers.inc(outcomeOfError(error)),
  };
}
