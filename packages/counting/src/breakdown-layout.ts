/**
 * The breakdowns of the totals (API.md `stats/breakdown`, docs/counting.md): per campaign or per
 * platform, within a *scope*. Pure: names and arithmetic only.
 *
 * A scope is a grain (layout.ts) that does not fix the breakdown's dimension: `all`, `co:<a>`, `po:<a>`,
 * and for campaigns `p:<p>` and `p:<p>|co:<a>`, for platforms `c:<c>` and `c:<c>|po:<a>`. A fact is
 * counted, beside its grains, in one *breakdown grain* per scope and dimension, `by-<dimension>@<scope>`,
 * whose fields are `<day>|<kind>|<item id>`: the folder moves each into the breakdown documents of its
 * scope, and a read adds what Redis still holds to them, as for the totals.
 */
import { UNFILLED_KIND, type CountedAllocation, type CountKind, type UnfilledAdRequest } from './layout';

export const BREAKDOWN_DIMENSIONS = ['campaign', 'publisher'] as const;
export type BreakdownDimension = (typeof BREAKDOWN_DIMENSIONS)[number];

const GRAIN_PREFIX = 'by-';

export function breakdownGrainOf(dimension: BreakdownDimension, scope: string): string {
  return `${GRAIN_PREFIX}${dimension}@${scope}`;
}

/** The dimension and scope of a breakdown grain; null for any other grain. */
export function parseBreakdownGrain(grain: string): { dimension: BreakdownDimension; scope: string } | null {
  if (!grain.startsWith(GRAIN_PREFIX)) return null;
  const at = grain.indexOf('@');
  const dimension = grain.slice(GRAIN_PREFIX.length, at);
  if (at < 0 || !(BREAKDOWN_DIMENSIONS as readonly string[]).includes(dimension)) return null;
  return { dimension: dimension as BreakdownDimension, scope: grain.slice(at + 1) };
}

/**
 * A viewer's scope (`all`, `co:<a>`, `po:<a>`: what an account or an administrator sees unfiltered) has
 * a document per day it folded, the month up to that day; a filter's scope (one campaign or platform)
 * keeps its days in its month document instead, as it holds the items of one campaign or platform only.
 */
export function isViewerScope(scope: string): boolean {
  return scope === 'all' || /^(co|po):[^|]*$/.test(scope);
}

export function isBreakdownGrain(grain: string): boolean {
  return grain.startsWith(GRAIN_PREFIX);
}

/** A breakdown grain's field: `<YYYY-MM-DD>|<kind>|<item id>`. */
export function breakdownFieldOf(day: string, kind: string, itemId: number): string {
  return `${day}|${kind}|${itemId}`;
}

export function parseBreakdownField(field: string): { day: string; kind: string; itemId: string } | null {
  const last = field.lastIndexOf('|');
  if (field.indexOf('|') !== 10 || last <= 11) return null;
  return { day: field.slice(0, 10), kind: field.slice(11, last), itemId: field.slice(last + 1) };
}

/** The breakdown grains and fields a fact of this allocation counts in (none for a filtered visit). */
export function breakdownCountsOf(allocation: CountedAllocation, kind: CountKind, day: string): Array<[string, string]> {
  if (kind.startsWith('filtered_')) return [];
  const { campaignId: c, publisherId: p, campaignOwnerAccountId: co, publisherOwnerAccountId: po } = allocation;
  // As for the grains: a fact of an account's campaign on its own platform counts under co: alone.
  const owners = po === co ? [`co:${co}`] : [`co:${co}`, `po:${po}`];
  const byCampaign = ['all', ...owners, `p:${p}`, `p:${p}|co:${co}`].map((scope): [string, string] => [breakdownGrainOf('campaign', scope), breakdownFieldOf(day, kind, c)]);
  const byPublisher = ['all', ...owners, `c:${c}`, `c:${c}|po:${po}`].map((scope): [string, string] => [breakdownGrainOf('publisher', scope), breakdownFieldOf(day, kind, p)]);
  return [...byCampaign, ...byPublisher];
}

/** An unfilled ad request is about a platform only: it counts in the platform breakdowns of `all` and `po:`. */
export function unfilledBreakdownCountsOf(request: UnfilledAdRequest, day: string): Array<[string, string]> {
  const field = breakdownFieldOf(day, UNFILLED_KIND, request.publisherId);
  return [
    [breakdownGrainOf('publisher', 'all'), field],
    [breakdownGrainOf('publisher', `po:${request.publisherOwnerAccountId}`), field],
  ];
}
