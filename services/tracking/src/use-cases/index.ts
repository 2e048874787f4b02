/**
 * Tracking's use cases: what happens on a delivery confirmation, a click, an allocation event and a
 * totals query. They see neither `req` nor `res`; routes map their results to HTTP.
 */
import type { ActiveCampaignCache } from '@pilot/campaign-cache';
import type { Clock } from '@pilot/config';
import type { AllocationCreated } from '@pilot/contracts';
import { ServiceUnavailableError } from '@pilot/faults';
import type { Logger } from '@pilot/logging';
import { readToken } from '@pilot/tokens';
import { clickCounting, judgeClick } from '../domain/click';
import { judgeDeliveryToken } from '../domain/delivery';
import { foldStats, type StatsAnswer, type StatsFilter } from '../domain/stats';
import type { KeyReader } from '@pilot/key-read-model';
import { factsOfClaims, type TrackingRecords } from '../data/records';

export interface TrackingDeps {
  records: TrackingRecords;
  publishers: KeyReader;
  campaigns: ActiveCampaignCache;
  tokenSecret: string;
  clock: Clock;
  logger: Logger;
}

export type ConfirmResult = { ok: true; firstConfirmation: boolean } | { ok: false; code: 'token_not_found' | 'token_expired' };

/** Confirms the delivery of the allocation a (well-formed) delivery token names, once. */
export async function confirmDelivery(deps: TrackingDeps, publisherId: number, token: string): Promise<ConfirmResult> {
  const now = deps.clock.now();
  const verdict = judgeDeliveryToken(readToken(deps.tokenSecret, 'delivery', token), publisherId, now);
  if (!verdict.ok) return verdict;
  const firstConfirmation = await deps.records.recordConfirmation(factsOfClaims(verdict.claims), now);
  return { ok: true, firstConfirmation };
}

export type ClickResult =
  | { ok: true; destination: string; counted: boolean }
  | { ok: false; status: 404 | 410; code: 'token_not_found' | 'link_expired' | 'campaign_inactive' | 'publisher_inactive' };

/** Resolves a click link; records a click (once per allocation) unless it is a HEAD or a preview agent. */
export async function openClickLink(deps: TrackingDeps, token: string, method: string, userAgent: string | undefined): Promise<ClickResult> {
  const claims = readToken(deps.tokenSecret, 'click', token);
  if (!claims) return { ok: false, status: 404, code: 'token_not_found' };
  // Without a snapshot the cache cannot tell an inactive campaign from an unknown one.
  if (!deps.campaigns.isReady()) throw new ServiceUnavailableError('campaign-cache', 'active campaigns not loaded yet');
  const now = deps.clock.now();
  const campaign = deps.campaigns.get(claims.campaignId);
  const verdict = judgeClick({
    claims,
    now,
    activeDestination: campaign ? campaign.destinationUrl : null,
    publisherActive: await deps.publishers.isApproved(claims.publisherId),
  });
  if (!verdict.ok) return { ok: false, status: 410, code: verdict.code };
  const facts = factsOfClaims(claims);
  const counting = clickCounting(method, userAgent);
  if (counting === 'count') {
    await deps.records.recordClick(facts, now);
    return { ok: true, destination: verdict.destination, counted: true };
  }
  // The separate count of filtered visits is informative only: losing one never refuses a redirect.
  await deps.records.recordFilteredClick(facts, counting, now).catch((error: unknown) => {
    deps.logger.warn({ err: (error as Error).message }, 'filtered click not recorded');
  });
  return { ok: true, destination: verdict.destination, counted: false };
}

/** Records one ad request per allocation; a redelivered event finds the record and changes nothing. */
export async function recordAllocation(deps: Pick<TrackingDeps, 'records'>, event: AllocationCreated): Promise<boolean> {
  return deps.records.recordAllocation({
    allocationId: event.data.allocationId,
    campaignId: event.data.campaignId,
    publisherId: event.data.publisherId,
    campaignOwnerAccountId: event.data.campaignOwnerAccountId,
    publisherOwnerAccountId: event.data.publisherOwnerAccountId,
    allocatedAt: new Date(event.data.allocatedAt),
  });
}

export async function readStats(deps: Pick<TrackingDeps, 'records'>, filter: StatsFilter): Promise<StatsAnswer> {
  return foldStats(await deps.records.countsByDay(filter));
}
