/**
 * The breakdowns of the totals (API.md `stats/breakdown`, docs/counting.md): per campaign or per
 * platform, within a *scope*. Pure: names and arithmetic only.
 *
 * A scope is a grain (layout.ts) that does not fix the breakdown's dimension: `all`, `co:<a>`, `po:<a>`,
 * and for campaigns `p:<p>` and `p:<p>|co:<a>`, for platforms `c:<c>` and `c:<c>|po:<a>`. MongoDB answers
 * a scope from the day documents of one grain per item (`scopeQueryOf`: the scope `po:<a>` by campaign is
 * the documents of the grains `c:<item>|po:<a>`). In Redis a fact is also counted in one *breakdown grain*
 * per scope and dimension, `by-<dimension>@<scope>`, fields `<day>|<kind>|<item id>`, so that a read adds
 * what is not folded yet without knowing the items; the folder leaves these grains out (the day
 * documents hold their counts already).
 */
import { UNFILLED_KIND, type CountedAllocation, type CountKind, type UnfilledAdRequest } from './layout';

/** Per item id, per kind, a count. */
export type ItemCounts = Record<string, Record<string, number>>;

/** The day documents of a scope's items: their filter beside the day range, the field naming the item, and each item's grain. */
export interface ScopeQuery {
  filter: Record<string, unknown>;
  itemField: 'campaignId' | 'publisherId';
  grainOf(item: number): string;
}

/**
 * The documents answering a breakdown of `scope` by `dimension`. An account's own campaign on its own
 * platform counts under `co:` alone (layout.ts), so the `po:` scope by campaign leaves out the account's
 * own campaigns, and the `co:` scope by platform its own platforms.
 */
export function scopeQueryOf(dimension: BreakdownDimension, scope: string): ScopeQuery {
  const [head = '', tail] = scope.split('|');
  const [kind = '', id = ''] = head.split(':');
  const account = tail?.slice(3);
  if (dimension === 'campaign') {
    const byCampaign = (filter: Record<string, unknown>, grainOf: (item: number) => string): ScopeQuery => ({ filter, itemField: 'campaignId', grainOf });
    if (kind === 'co') return byCampaign({ level: 'campaign', campaignOwnerAccountId: id }, (c) => `c:${c}`);
    if (kind === 'po') return byCampaign({ level: 'campaignOnOwnersPublishers', accountId: id, campaignOwnerAccountId: { $ne: id } }, (c) => `c:${c}|po:${id}`);
    if (kind === 'p') return byCampaign({ level: 'campaignPublisher', publisherId: Number(id), ...(account ? { campaignOwnerAccountId: account } : {}) }, (c) => `cp:${c}:${id}`);
    return byCampaign({ level: 'campaign' }, (c) => `c:${c}`);
  }
  const byPublisher = (filter: Record<string, unknown>, grainOf: (item: number) => string): ScopeQuery => ({ filter, itemField: 'publisherId', grainOf });
  if (kind === 'po') return byPublisher({ level: 'publisher', publisherOwnerAccountId: id }, (p) => `p:${p}`);
  if (kind === 'co') return byPublisher({ level: 'publisherOnOwnersCampaigns', accountId: id, publisherOwnerAccountId: { $ne: id } }, (p) => `p:${p}|co:${id}`);
  if (kind === 'c') return byPublisher({ level: 'campaignPublisher', campaignId: Number(id), ...(account ? { publisherOwnerAccountId: account } : {}) }, (p) => `cp:${id}:${p}`);
  return byPublisher({ level: 'publisher' }, (p) => `p:${p}`);
}

/** A scope's day documents as read: per item and day, the counts and the document's `lastFold`. */
export type StoredItems = Map<number, Map<string, { counts: Record<string, number>; lastFold: number }>>;

/** The per-item counts of a scope within `range`: its documents', plus what Redis holds that they have not applied (unappliedCounts). */
export function sumBreakdown(stored: StoredItems, parts: UnfoldedParts, range: DayBounds): ItemCounts {
  const sums: ItemCounts = {};
  const add = (item: number, kind: string, count: number) => {
    const counts = (sums[item] ??= {});
    counts[kind] = (counts[kind] ?? 0) + count;
  };
  for (const [item, days] of stored) for (const { counts } of days.values()) for (const [kind, count] of Object.entries(counts)) add(item, kind, count);
  for (const { item, kind, count } of unappliedCounts(stored, parts, range)) add(item, kind, count);
  return sums;
}

type UnfoldedParts = Array<{ fold: number; fields: Map<string, number> }>;
type DayBounds = { from?: string; to?: string };

/**
 * Each count Redis holds of a scope's breakdown grain, within `range`, that its item's day document has not
 * applied: an open interval's, or a fold's above the document's `lastFold`.
 */
export function* unappliedCounts(stored: StoredItems, parts: UnfoldedParts, range: DayBounds): Generator<{ item: number; day: string; kind: string; count: number }> {
  for (const part of parts) {
    for (const [field, count] of part.fields) {
      const parsed = parseBreakdownField(field);
      if (!parsed || (range.from !== undefined && parsed.day < range.from) || (range.to !== undefined && parsed.day > range.to)) continue;
      const item = Number(parsed.itemId);
      if (part.fold <= (stored.get(item)?.get(parsed.day)?.lastFold ?? 0)) continue;
      yield { item, day: parsed.day, kind: parsed.kind, count };
    }
  }
}

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
