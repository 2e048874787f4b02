/**
 * The sandbox (docs/publishers.md): what a test key's ad request is answered. Pure.
 *
 * - The fixed test creative: marked as a test in its own words, `sponsored: true`, the campaign id no real
 *   campaign has (TEST_CAMPAIGN_ID), and tokens that tracking recognises as a test allocation, so its
 *   confirmation and click answer as live ones but are never counted; the click redirects to the site's
 *   page that explains the sandbox.
 * - `X-Pilot-Test-Answer: 204|429|503` forces that answer, so a publisher can test its error handling.
 *   Any other value is 400 `invalid_test_answer`. A live key's request never reads the header.
 */
import type { NoFillReason } from '@pilot/contracts';
import { TEST_CAMPAIGN_ID, TEST_CAMPAIGN_OWNER, type AllocationClaims } from '@pilot/tokens';
import type { Creative } from './ad';

export const TEST_ANSWER_HEADER = 'x-pilot-test-answer';
/** On every answer to a test key: the caller can tell a sandbox answer without reading the body. */
export const TEST_MARK_HEADERS = { 'X-Pilot-Test': 'true' } as const;

export const FORCED_ANSWERS = ['204', '429', '503'] as const;
export type ForcedAnswer = (typeof FORCED_ANSWERS)[number];

/** What a forced 204 gives as its Pilot-No-Fill-Reason: the sandbox has no campaigns. */
export const FORCED_NO_FILL_REASON: NoFillReason = 'no_active_campaign';

export type TestAnswerChoice = { ok: true; forced: ForcedAnswer | null } | { ok: false; detail: string };

/** The value of `X-Pilot-Test-Answer` (absent or empty: no forced answer). */
export function parseTestAnswer(raw: unknown): TestAnswerChoice {
  if (raw === undefined || raw === '') return { ok: true, forced: null };
  const value = typeof raw === 'string' ? raw.trim() : null;
  if (value !== null && (FORCED_ANSWERS as readonly string[]).includes(value)) return { ok: true, forced: value as ForcedAnswer };
  return { ok: false, detail: 'X-Pilot-Test-Answer must be one of 204, 429 or 503' };
}

/** The fixed test creative, in the shape of a cached campaign so the Ad is built the same way as a live one's. */
export const TEST_CREATIVE: Creative = {
  campaignId: TEST_CAMPAIGN_ID,
  title: 'Test ad: Publisher Pilot sandbox',
  text:
    'This is a test creative, answered because your server used a test key. It is never counted in any ' +
    'total. Send it as you would send a live ad, confirm the delivery, and open the button link to check ' +
    'your integration.',
  buttonText: 'About this test ad',
  imageUrl: null,
};

/** The claims of a test allocation: the test creative, shown by this publisher, owned by nobody. */
export function testAllocationOf(allocationId: string, publisherId: number, publisherOwnerAccountId: string, issuedAt: Date): AllocationClaims {
  return { allocationId, campaignId: TEST_CAMPAIGN_ID, publisherId, campaignOwnerAccountId: TEST_CAMPAIGN_OWNER, publisherOwnerAccountId, issuedAt };
}
