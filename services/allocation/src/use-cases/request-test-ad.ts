/**
 * requestTestAd: an ad request made with a platform's test key (the sandbox, docs/publishers.md), whatever
 * the platform's status. In order:
 *   1. the limit window all test keys of the owner's account share, 60 a minute as for a live key,
 *      counting nothing (429 over it);
 *   2. the language, as for a live key (400 invalid_language);
 *   3. X-Pilot-Test-Answer: 204, 429 or 503 forces that answer (a forced 204 gives a no-fill reason, a
 *      forced 429 says nothing is left in the window); another value is 400 invalid_test_answer;
 *   4. otherwise the fixed test creative, with tokens of a test allocation (never counted by tracking).
 * One Redis round trip after the key check, as on the live path; no campaign index, no count, no database.
 * Refusals are returned as `problem` (not thrown) so the route tells them from the live path's in metrics.
 */
import { type Clock, HttpError, problems } from '@pilot/platform';
import type { CountRecorder } from '@pilot/counting';
import type { KeyHolder } from '@pilot/publisher-keys';
import { issueToken, newAllocationId } from '@pilot/tokens';
import { buildAd, clickUrlOf, type Ad } from '../domain/ad';
import { parseLanguage } from '../domain/language';
import { AD_REQUEST_LIMIT, rateLimitHeaders, type LimitState } from '../domain/rate-limit';
import { FORCED_NO_FILL_REASON, parseTestAnswer, TEST_CREATIVE, TEST_MARK_HEADERS, testAllocationOf } from '../domain/test-ad';
import { NO_FILL_REASON_HEADER } from './no-fill';

export interface TestAdDependencies {
  counts: CountRecorder;
  clock: Clock;
  tokenSecret: string;
  publicBaseUrl: string;
}

/** An answer to a test key: an Ad, none (204), or a refusal to send as it is (forced or not). */
export interface TestAdAnswer {
  ad: Ad | null;
  headers: Record<string, string>;
  test: true;
  problem?: HttpError;
}

/** The live path's refusals, so the test path answers with the very same ones. */
export interface AdRefusals {
  invalidLanguage(headers: Record<string, string>): HttpError;
  rateLimited(headers: Record<string, string>, state: LimitState, detail?: string): HttpError;
}

export const INVALID_TEST_ANSWER = 'invalid_test_answer';

export async function requestTestAd(
  deps: TestAdDependencies,
  holder: KeyHolder,
  request: { language: unknown; testAnswer?: unknown },
  refusals: AdRefusals,
): Promise<TestAdAnswer> {
  const now = deps.clock.now();
  const limit = await deps.counts.consumeTestAdRequest(holder.ownerAccountId, AD_REQUEST_LIMIT, now);
  const headers = { ...rateLimitHeaders(limit), ...TEST_MARK_HEADERS };
  const refused = (problem: HttpError): TestAdAnswer => ({ ad: null, headers, test: true, problem });
  if (!limit.allowed) return refused(refusals.rateLimited(headers, limit));
  if (!parseLanguage(request.language)) return refused(refusals.invalidLanguage(headers));

  const choice = parseTestAnswer(request.testAnswer);
  if (!choice.ok) {
    const error = problems.badRequest(INVALID_TEST_ANSWER, choice.detail);
    return refused(new HttpError(error.status, error.code, error.title, error.detail, undefined, headers));
  }
  if (choice.forced === '204') return { ad: null, headers: { ...headers, [NO_FILL_REASON_HEADER]: FORCED_NO_FILL_REASON }, test: true };
  if (choice.forced === '429') {
    // As a real 429 says: nothing left in this window.
    const exhausted = { ...headers, 'RateLimit-Remaining': '0' };
    return { ...refused(refusals.rateLimited(exhausted, limit, 'Forced by X-Pilot-Test-Answer: 429 (test key)')), headers: exhausted };
  }
  if (choice.forced === '503') {
    const error = problems.unavailable('Forced by X-Pilot-Test-Answer: 503 (test key)');
    return refused(new HttpError(error.status, error.code, error.title, error.detail, undefined, { ...headers, ...error.headers }));
  }

  const allocation = testAllocationOf(newAllocationId(), holder.publisherId, holder.ownerAccountId, now);
  const ad = buildAd(TEST_CREATIVE, {
    clickUrl: clickUrlOf(deps.publicBaseUrl, issueToken(deps.tokenSecret, 'click', allocation)),
    deliveryToken: issueToken(deps.tokenSecret, 'delivery', allocation),
  });
  return { ad, headers, test: true };
}
