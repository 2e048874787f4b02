/**
 * Tracking's use cases: what happens on a delivery confirmation, a click and a totals query. They see
 * neither `req` nor `res`; routes map their results to HTTP.
 */
import type { ActiveCampaignCache } from '@pilot/campaign-cache';
import { type Clock, ServiceUnavailableError, type Logger } from '@pilot/platform';
import { breakdownGrainOf, daysBetween, grainDaysOf, grainHoursOf, sumBreakdown, type CountRecorder, type UnfoldedCounts } from '@pilot/counting';
import { coveredBy, type BreakdownStore, type HourlyStore, type TotalsStore } from '@pilot/counting/totals';
import { isExpired, isTestAllocation, readToken } from '@pilot/tokens';
import { clickCounting, judgeClick, sandboxPageOf } from '../domain/click';
import { judgeDeliveryToken } from '../domain/delivery';
import { planStats, sumHours, sumStats, type HourlyStatsAnswer, type StatsAnswer, type StatsFilter } from '../domain/stats';
import { keptItemOf, orderedItems, pageOf, planBreakdown, type BreakdownItem, type BreakdownQuery } from '../domain/breakdown';
import type { KeyKind, KeyReader } from '@pilot/publisher-keys';
import type { AllocationClaims, TokenSecrets } from '@pilot/tokens';

export interface TrackingDeps {
  counts: CountRecorder;
  totals: TotalsStore;
  breakdowns: BreakdownStore;
  hourly: HourlyStore;
  unfolded: UnfoldedCounts;
  publishers: KeyReader;
  campaigns: ActiveCampaignCache;
  /** TOKEN_SECRET and, during a rotation, TOKEN_SECRET_PREVIOUS. */
  tokenSecrets: TokenSecrets;
  /** PUBLIC_BASE_URL: a test ad's click leads to the site's sandbox page under it. */
  publicBaseUrl: string;
  clock: Clock;
  logger: Logger;
}

export type ConfirmResult = { ok: true; firstConfirmation: boolean; test: boolean } | { ok: false; code: 'token_not_found' | 'token_expired' };

/**
 * Confirms the delivery of the allocation a (well-formed) delivery token names, once. The key's kind
 * must match the allocation's (decision 0021): a test key confirms only test allocations, which answer as
 * live ones but are never counted, and a live key only live ones; anything else is token_not_found.
 */
export async function confirmDelivery(deps: TrackingDeps, publisherId: number, keyKind: KeyKind, token: string): Promise<ConfirmResult> {
  const now = deps.clock.now();
  const verdict = judgeDeliveryToken(readToken(deps.tokenSecrets, 'delivery', token), publisherId, now);
  if (!verdict.ok) return verdict;
  const test = isTestAllocation(verdict.claims);
  if (test !== (keyKind === 'test')) return { ok: false, code: 'token_not_found' };
  const firstConfirmation = test
    ? await deps.counts.firstTestFact('confirmedDeliveries', verdict.claims.allocationId, verdict.claims.issuedAt, now)
    : await deps.counts.countOnce('confirmedDeliveries', verdict.claims.allocationId, countedOf(verdict.claims), now);
  return { ok: true, firstConfirmation, test };
}

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
 * A test ad's click link (decision 0021): valid for the hour, whatever the platform's status, leading to
 * the site's sandbox page; never counted, never consulting the campaign cache or the key read model.
 */
function openTestClickLink(deps: TrackingDeps, claims: AllocationClaims): ClickResult {
  if (isExpired(claims, deps.clock.now())) return { ok: false, status: 410, code: 'link_expired' };
  return { ok: true, destination: sandboxPageOf(deps.publicBaseUrl), click: 'test' };
}

/**
 * The totals over the records the filter and the account may see: MongoDB's documents first (one per
 * grain and month of the range), then what Redis holds that they do not (docs/decisions/0013). A handful
 * of lookups by key, whatever the traffic.
 */
export async function readStats(deps: Pick<TrackingDeps, 'totals' | 'unfolded' | 'clock'>, filter: StatsFilter): Promise<StatsAnswer> {
  const plan = planStats(filter);
  const stored = await deps.totals.readRange(plan.candidates, filter, deps.clock.now());
  const unfolded = await deps.unfolded.read(plan.candidates, plan.ownerSubjects);
  const grains = plan.choose(ownersOf(plan.ownerSubjects, unfolded.owners, [...stored.values()])).map((grain) =>
    grainDaysOf(
      stored.get(grain),
      unfolded.parts.filter((part) => part.grain === grain),
    ),
  );
  return sumStats(grains, filter);
}

/**
 * The totals by the hour of a range of at most 8 days (validated by the caller): the hourly documents of
 * each grain and day, then what Redis holds that they do not; the plan's owners as for `readStats`.
 */
export async function readHourlyStats(deps: Pick<TrackingDeps, 'totals' | 'hourly' | 'unfolded' | 'clock'>, filter: StatsFilter & { from: string; to: string }): Promise<HourlyStatsAnswer> {
  const plan = planStats(filter);
  const [stored, owned] = await Promise.all([
    deps.hourly.read(plan.candidates, daysBetween(filter.from, filter.to)),
    plan.ownerSubjects.length > 0 ? deps.totals.readRange(plan.candidates, filter, deps.clock.now()) : Promise.resolve(new Map()),
  ]);
  const unfolded = await deps.unfolded.read(plan.candidates, plan.ownerSubjects);
  const grains = plan.choose(ownersOf(plan.ownerSubjects, unfolded.owners, [...owned.values()])).map((grain) =>
    grainHoursOf(
      stored.get(grain),
      unfolded.parts.filter((part) => part.grain === grain),
    ),
  );
  return sumHours(grains, filter);
}

/** Owners of the plan's subjects: Redis' record, else the one every stored document about them names. */
function ownersOf(subjects: string[], counted: Map<string, string>, documents: Array<{ campaignOwnerAccountId?: string; publisherOwnerAccountId?: string }>): Map<string, string> {
  const owners = new Map(counted);
  for (const subject of subjects) {
    const field = subject.startsWith('c:') ? 'campaignOwnerAccountId' : 'publisherOwnerAccountId';
    const owner = documents.map((document) => document[field]).find(Boolean);
    if (owner && !owners.has(subject)) owners.set(subject, owner);
  }
  return owners;
}

export interface BreakdownAnswer {
  items: BreakdownItem[];
  nextCursor: string | null;
}

/**
 * The totals per campaign or platform over the records the filter and the account may see: the
 * breakdown documents of the scopes `stats` would read (at most three per scope and month; those the
 * process keeps decoded, docs/decisions/0041), then what Redis holds that they do not, as for `stats`.
 */
export async function readBreakdown(deps: Pick<TrackingDeps, 'totals' | 'breakdowns' | 'unfolded' | 'clock'>, query: BreakdownQuery, visibleTo: string | undefined): Promise<BreakdownAnswer> {
  const filter: StatsFilter = { ...query.filter, visibleTo };
  const plan = planBreakdown(query.by, filter);
  const firstMonth = await deps.totals.firstMonth();
  const readBoth = async (unconfirmed: boolean) => {
    const stored = await deps.breakdowns.read(query.by, plan.candidates, filter, firstMonth, deps.clock.now(), { unconfirmed });
    const unfolded = await deps.unfolded.read(
      plan.candidates.map((scope) => breakdownGrainOf(query.by, scope)),
      plan.ownerSubjects,
    );
    return { stored, unfolded };
  };
  let { stored, unfolded } = await readBoth(true);
  // A kept document whose later folds Redis let go of meanwhile: read again, MongoDB then Redis.
  if (!coveredBy(stored, unfolded.keptFolds)) ({ stored, unfolded } = await readBoth(false));
  const counts = plan.choose(ownersOf(plan.ownerSubjects, unfolded.owners, [...stored.values()])).map((scope) =>
    sumBreakdown(
      stored.get(scope)?.sides ?? [],
      unfolded.parts.filter((part) => part.grain === breakdownGrainOf(query.by, scope)),
      filter,
    ),
  );
  const merged = counts.reduce((into, scopeCounts) => {
    for (const [id, kinds] of Object.entries(scopeCounts)) {
      const item = (into[id] ??= {});
      for (const [kind, count] of Object.entries(kinds)) item[kind] = (item[kind] ?? 0) + count;
    }
    return into;
  }, {});
  return pageOf(orderedItems(merged, query.sort, keptItemOf(query.by, filter)), query);
}

function countedOf(claims: AllocationClaims) {
  return {
    campaignId: claims.campaignId,
    publisherId: claims.publisherId,
    campaignOwnerAccountId: claims.campaignOwnerAccountId,
    publisherOwnerAccountId: claims.publisherOwnerAccountId,
    allocatedAt: claims.issuedAt,
  };
}
