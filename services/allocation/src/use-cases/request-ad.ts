/**
 * requestAd: the ad request hot path (ARCHITECTURE.md). In order:
 *   1. the bearer key, hashed and checked in the Redis key read model (401 when missing, malformed,
 *      unknown or revoked: invalid_key; when the publisher is not approved: publisher_not_approved);
 *   2. the language (400 invalid_language, which still counts against the limit);
 *   3. selection from the in-memory index, and the tokens of the allocation;
 *   4. the per-publisher limit and, when a creative was chosen, the count of the ad request, in one
 *      atomic Redis step (429 over the limit; 204 when nothing qualifies; 200 counted exactly once).
 *      A request within the limit for which nothing qualifies is counted too, as unfilled (the 204s of
 *      the fill rate), in the same step.
 * A current test key goes to requestTestAd (the sandbox) right after step 1; a live key's
 * request never reads the test header.
 * No call to another service, no broker publish and no database write. Redis faults are 503, never 500.
 */
import { type Clock, ServiceUnavailableError, HttpError, problems } from '@pilot/platform';
import type { CountRecorder } from '@pilot/counting';
import type { KeyReader, KeyUseRecorder } from '@pilot/publisher-keys';
import { issueToken, newAllocationId } from '@pilot/tokens';
import { buildAd, clickUrlOf, type Ad } from '../domain/ad';
import { parseLanguage } from '../domain/language';
import { AD_REQUEST_LIMIT, rateLimitHeaders, secondsUntilReset, type LimitState } from '../domain/rate-limit';
import type { CampaignIndex } from '../domain/selection';
import { NO_FILL_REASON_HEADER } from './no-fill';
import { requestTestAd, type TestAdAnswer } from './request-test-ad';

export interface AdRequestDependencies {
  publishers: KeyReader;
  /** Notes when each key was last used: throttled, never awaited, never failing the request. */
  keyUses?: KeyUseRecorder;
  counts: CountRecorder;
  index: CampaignIndex;
  /** True once the campaign cache holds a snapshot; before that the service cannot tell 204 from 200. */
  indexReady: () => boolean;
  clock: Clock;
  tokenSecret: string;
  publicBaseUrl: string;
}
export interface AdRequest {
  authorization: string | undefined;
  language: unknown;
  /** The X-Pilot-Test-Answer header: read for test keys only. */
  testAnswer?: unknown;
}

/**
 * The answer: an Ad (200) or none (204), with the limit's headers. A test key's answer is marked `test`,
 * and its refusals (forced or not) come as `problem` rather than thrown, so they are told apart from the
 * live path's in the metrics and never logged as faults.
 */
export type AdAnswer = { ad: Ad | null; headers: Record<string, string>; test?: undefined; problem?: undefined } | TestAdAnswer;

export const ERROR_CODES = {
  invalidLanguage: 'invalid_language',
  rateLimited: 'rate_limited',
} as const;

const RATE_LIMITED_DETAIL = 'Over 60 ad requests per publisher per minute';

export async function requestAd(deps: AdRequestDependencies, request: AdRequest): Promise<AdAnswer> {
  // 1. Who is asking.
  const authenticated = await deps.publishers.authenticate(request.authorization);
  if (!authenticated.ok) throw problems.publisherKeyRefused(authenticated.refusal.code, authenticated.refusal.detail);
  const owner = authenticated.holder;
  deps.keyUses?.touch(owner.publisherId, owner.keyKind, deps.clock.now());
  if (owner.keyKind === 'test') return requestTestAd(deps, owner, request, { invalidLanguage, rateLimited });

  // 2. What is asked for. A malformed request still counts against the limit.
  const language = parseLanguage(request.language);
  if (!language) {
    const limited = await deps.counts.countAdRequest(owner.publisherId, AD_REQUEST_LIMIT, null, deps.clock.now());
    const headers = rateLimitHeaders(limited);
    if (!limited.allowed) throw rateLimited(headers, limited);
    throw invalidLanguage(headers);
  }

  // 3. Selection from the local index, and everything the answer needs, before anything is counted.
  if (!deps.indexReady()) throw new ServiceUnavailableError('campaign-cache', 'the campaign snapshot is not loaded yet');
  const query = { format: owner.type, language, excludedOwnerAccountId: owner.ownerAccountId };
  const campaign = deps.index.pick(query);
  const noFillReason = campaign ? null : deps.index.noFillReason(query);
  const issuedAt = deps.clock.now();
  const allocation = campaign
    ? {
        allocationId: newAllocationId(),
        campaignId: campaign.campaignId,
        publisherId: owner.publisherId,
        campaignOwnerAccountId: campaign.ownerAccountId,
        publisherOwnerAccountId: owner.ownerAccountId,
        issuedAt,
      }
    : null;
  const ad =
    campaign && allocation
      ? buildAd(campaign, {
          clickUrl: clickUrlOf(deps.publicBaseUrl, issueToken(deps.tokenSecret, 'click', allocation)),
          deliveryToken: issueToken(deps.tokenSecret, 'delivery', allocation),
        })
      : null;

  // 4. The limit, shared by every replica, and the count of this ad request (filled or not), in one step.
  const fact = allocation
    ? { ...allocation, allocatedAt: issuedAt }
    : { unfilled: true as const, requestId: newAllocationId(), publisherId: owner.publisherId, publisherOwnerAccountId: owner.ownerAccountId, requestedAt: issuedAt };
  const counted = await deps.counts.countAdRequest(owner.publisherId, AD_REQUEST_LIMIT, fact, issuedAt);
  const headers = rateLimitHeaders(counted);
  if (!counted.allowed) throw rateLimited(headers, counted);
  if (noFillReason) headers[NO_FILL_REASON_HEADER] = noFillReason;
  return { ad, headers };
}

function invalidLanguage(headers: Record<string, string>): HttpError {
  const error = problems.badRequest(ERROR_CODES.invalidLanguage, 'language must be an ISO 639-1 code such as en, or a tag of one such as pt-BR');
  return new HttpError(error.status, error.code, error.title, error.detail, undefined, headers);
}

function rateLimited(headers: Record<string, string>, state: LimitState, detail = RATE_LIMITED_DETAIL): HttpError {
  return new HttpError(429, ERROR_CODES.rateLimited, 'Too many requests', detail, undefined, {
    ...headers,
    'Retry-After': String(secondsUntilReset(state)),
  });
}
