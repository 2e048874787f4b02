/**
 * requestAd: the ad request hot path (ARCHITECTURE.md). In order:
 *   1. the bearer key, hashed and looked up in the Redis key read model (401 when missing, malformed,
 *      unknown, revoked, or the publisher is not approved);
 *   2. the per-publisher limit in Redis (429); every authenticated request counts;
 *   3. the language (400 invalid_language);
 *   4. selection from the in-memory index (204 when nothing qualifies);
 *   5. tokens, and `allocation.created` confirmed by the broker before the answer (503 otherwise).
 * No call to another service and no database write. Redis or broker faults are 503, never 500.
 */
import type { Bus } from '@pilot/bus';
import { ALLOCATION_CREATED, createEnvelope, type AllocationCreated } from '@pilot/contracts';
import type { Clock } from '@pilot/config';
import { ServiceUnavailableError } from '@pilot/faults';
import { HttpError, problems } from '@pilot/http-kit';
import { bearerKeyOf } from '@pilot/key-read-model';
import { issueToken, newAllocationId } from '@pilot/tokens';
import type { AdRequestLimiter } from '../data/ad-request-limiter';
import type { KeyReader } from '@pilot/key-read-model';
import { buildAd, clickUrlOf, type Ad } from '../domain/ad';
import { parseLanguage } from '../domain/language';
import { rateLimitHeaders, secondsUntilReset } from '../domain/rate-limit';
import type { CampaignIndex } from '../domain/selection';

export interface AdRequestDependencies {
  publishers: KeyReader;
  limiter: AdRequestLimiter;
  index: CampaignIndex;
  /** True once the campaign cache holds a snapshot; before that the service cannot tell 204 from 200. */
  indexReady: () => boolean;
  bus: Pick<Bus, 'publish'>;
  clock: Clock;
  tokenSecret: string;
  publicBaseUrl: string;
}

export interface AdRequest {
  authorization: string | undefined;
  language: unknown;
}

export type AdAnswer = { ad: Ad | null; headers: Record<string, string> };

export const ERROR_CODES = {
  missingKey: 'missing_key',
  invalidKey: 'invalid_key',
  notApproved: 'publisher_not_approved',
  invalidLanguage: 'invalid_language',
  rateLimited: 'rate_limited',
} as const;

function unauthorized(code: string, detail: string): HttpError {
  return new HttpError(401, code, 'Unauthorized', detail, undefined, { 'WWW-Authenticate': 'Bearer realm="pilot-network"' });
}

export async function requestAd(deps: AdRequestDependencies, request: AdRequest): Promise<AdAnswer> {
  // 1. Who is asking.
  if (request.authorization === undefined || request.authorization.trim() === '') {
    throw unauthorized(ERROR_CODES.missingKey, 'Send the publisher key as Authorization: Bearer <key>');
  }
  const key = bearerKeyOf(request.authorization);
  if (!key) throw unauthorized(ERROR_CODES.invalidKey, 'The publisher key is invalid or revoked');
  const owner = await deps.publishers.checkKey(key);
  if (!owner) throw unauthorized(ERROR_CODES.invalidKey, 'The publisher key is invalid or revoked');
  if (owner.status !== 'approved') throw unauthorized(ERROR_CODES.notApproved, 'The publisher is not approved');

  // 2. The limit, shared by every replica.
  const decision = await deps.limiter.consume(owner.publisherId);
  const headers = rateLimitHeaders(decision.state);
  if (!decision.allowed) {
    throw new HttpError(429, ERROR_CODES.rateLimited, 'Too many requests', 'Over 60 ad requests per publisher per minute', undefined, {
      ...headers,
      'Retry-After': String(secondsUntilReset(decision.state)),
    });
  }

  // 3. What is asked for.
  const language = parseLanguage(request.language);
  if (!language) {
    const error = problems.badRequest(ERROR_CODES.invalidLanguage, 'language must be a two-letter ISO 639-1 code such as en');
    throw new HttpError(error.status, error.code, error.title, error.detail, undefined, headers);
  }

  // 4. Selection from the local index.
  if (!deps.indexReady()) throw new ServiceUnavailableError('campaign-cache', 'the campaign snapshot is not loaded yet');
  const campaign = deps.index.pick({ format: owner.type, language, excludedOwnerAccountId: owner.ownerAccountId });
  if (!campaign) return { ad: null, headers };

  // 5. The allocation: tokens, then the event confirmed by the broker, then the answer.
  const issuedAt = deps.clock.now();
  const allocationId = newAllocationId();
  const claims = {
    allocationId,
    campaignId: campaign.campaignId,
    publisherId: owner.publisherId,
    campaignOwnerAccountId: campaign.ownerAccountId,
    publisherOwnerAccountId: owner.ownerAccountId,
    issuedAt,
  };
  const event: AllocationCreated = createEnvelope(
    ALLOCATION_CREATED,
    allocationId,
    1,
    {
      allocationId,
      campaignId: campaign.campaignId,
      campaignOwnerAccountId: campaign.ownerAccountId,
      publisherId: owner.publisherId,
      publisherOwnerAccountId: owner.ownerAccountId,
      format: owner.type,
      language,
      allocatedAt: issuedAt.toISOString(),
    },
    issuedAt,
  );
  // Everything that could fail is built before the event leaves: an event is never published for an
  // allocation that is then not answered with 200.
  const ad = buildAd(campaign, {
    clickUrl: clickUrlOf(deps.publicBaseUrl, issueToken(deps.tokenSecret, 'click', claims)),
    deliveryToken: issueToken(deps.tokenSecret, 'delivery', claims),
  });
  await deps.bus.publish(event);
  return { ad, headers };
}
