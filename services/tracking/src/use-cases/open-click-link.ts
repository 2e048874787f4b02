import { ServiceUnavailableError } from '@pilot/platform';
import { isExpired, isTestAllocation, readToken, type AllocationClaims } from '@pilot/tokens';
import { clickCounting, judgeClick, sandboxPageOf } from '../domain/click';
import { countedOf } from '../domain/counted';
import type { TrackingDeps } from './deps';

export type ClickResult =
  | { ok: true; destination: string; click: 'first' | 'repeat' | 'filtered' | 'test'; filter?: 'head' | 'preview_agent' }
  | { ok: false; status: 404 | 410; code: 'token_not_found' | 'link_expired' | 'campaign_inactive' | 'publisher_inactive' };

/** Resolves a click link; records a click (once per allocation) unless it is a HEAD or a preview agent. */
export async function openClickLink(deps: TrackingDeps, token: string, method: string, userAgent: string | undefined): Promise<ClickResult> {
  const claims = readToken(deps.tokenSecrets, 'click', token);
  if (!claims) return { ok: false, status: 404, code: 'token_not_found' };
  if (isTestAllocation(claims)) return openTestClickLink(deps, claims);
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
  const counting = clickCounting(method, userAgent);
  if (counting === 'count') {
    const first = await deps.counts.countOnce('clickedLinks', claims.allocationId, countedOf(claims), now);
    return { ok: true, destination: verdict.destination, click: first ? 'first' : 'repeat' };
  }
  // The separate count of filtered visits is informative only: losing one never refuses a redirect.
  await deps.counts.countFilteredVisit(counting, countedOf(claims), now).catch((error: unknown) => {
    deps.logger.warn({ err: (error as Error).message }, 'filtered visit not counted');
  });
  return { ok: true, destination: verdict.destination, click: 'filtered', filter: counting };
}

/**
 * A test ad's click link: valid for the hour, whatever the platform's status, leading to
 * the site's sandbox page; never counted, never consulting the campaign cache or the key read model.
 */
function openTestClickLink(deps: TrackingDeps, claims: AllocationClaims): ClickResult {
  if (isExpired(claims, deps.clock.now())) return { ok: false, status: 410, code: 'link_expired' };
  return { ok: true, destination: sandboxPageOf(deps.publicBaseUrl), click: 'test' };
}
