import { counterIn, outcomeOfError, type Registry } from '@pilot/platform';

export type AdAnswersCounter = { filled(): void; empty(): void; failed(error: unknown): void; test(status: number): void };

/**
 * `pilot_ad_answers_total{outcome, reason}`: filled (200), empty (204), limited (429), refused (4xx, by
 * problem code: invalid_key, publisher_not_approved, invalid_language) or failed (5xx: unavailable, error);
 * `test` (reason: the status sent) for every answer to a sandbox test key, forced or not, so a publisher
 * testing its error handling never moves the live figures or the error-ratio alert.
 */
export function adAnswersCounter(registry: Registry): AdAnswersCounter {
  const answers = counterIn(registry, 'pilot_ad_answers_total', 'Answers to ad requests by outcome and reason', ['outcome', 'reason']);
  return {
    filled: () => answers.inc({ outcome: 'filled', reason: 'none' }),
    empty: () => answers.inc({ outcome: 'empty', reason: 'none' }),
    failed: (error) => answers.inc(outcomeOfError(error)),
    test: (status) => answers.inc({ outcome: 'test', reason: String(status) }),
  };
}
