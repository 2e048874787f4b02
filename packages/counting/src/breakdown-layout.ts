/**
 * Breakdowns per campaign or platform within a *scope*, a grain that does not fix the dimension (README.md):
 * the day documents of one grain per item, plus Redis' never-folded breakdown grain of the scope. Pure.
 */
import { UNFILLED_KIND, type CountedAllocation, type CountKind, type DayRange, type StoredDay, type UnfilledAdRequest } from './layout';

export type BreakdownDimension = 'campaign' | 'publisher';

export type ItemCounts = Record<string, Record<string, number>>;

/** The documents of a scope's items; an own campaign on an own platform counts under `co:` alone, so `po:` leaves them out. */
export function scopeQueryOf(dimension: BreakdownDimension, scope: string): Record<string, unknown> {
  const [head = '', tail] = scope.split('|');
  const [kind = '', id = ''] = head.split(':');
  const account = tail?.slice(3);
  if (dimension === 'campaign') {
    if (kind === 'co') return { level: 'campaign', campaignOwnerAccountId: id };
    if (kind === 'po') return { level: 'campaignOnOwnersPublishers', accountId: id, campaignOwnerAccountId: { $ne: id } };
    if (kind === 'p') return { level: 'campaignPublisher', publisherId: Number(id), ...(account ? { campaignOwnerAccountId: account } : {}) };
    return { level: 'campaign' };
  }
  if (kind === 'po') return { level: 'publisher', publisherOwnerAccountId: id };
  if (kind === 'co') return { level: 'publisherOnOwnersCampaigns', accountId: id, publisherOwnerAccountId: { $ne: id } };
  if (kind === 'c') return { level: 'campaignPublisher', campaignId: Number(id), ...(account ? { publisherOwnerAccountId: account } : {}) };
  return { level: 'publisher' };
}

type UnfoldedParts = Array<{ fold: number; fields: Map<string, number> }>;

export function itemOf(dimension: BreakdownDimension, document: StoredDay): number {
  return (dimension === 'campaign' ? document.campaignId : document.publisherId)!;
}

/** The per-item counts of a scope within `range`: its documents' plus what Redis holds that they lack. */
export function sumBreakdown(dimension: BreakdownDimension, stored: StoredDay[], parts: UnfoldedParts, range: DayRange): ItemCounts {
  const sums: ItemCounts = {};
  for (const { item, kind, count } of breakdownCounts(dimension, stored, parts, range)) {
    const counts = (sums[item] ??= {});
    counts[kind] = (counts[kind] ?? 0) + count;
  }
  return sums;
}

/** Each count of a scope within `range`: its documents', then what their folds have not applied (callers sum). */
export function* breakdownCounts(dimension: BreakdownDimension, stored: StoredDay[], parts: UnfoldedParts, range: DayRange): Generator<{ item: number; day: string; kind: string; count: number }> {
  for (const document of stored) {
    const item = itemOf(dimension, document);
    for (const [kind, count] of Object.entries(document.counts)) yield { item, day: document.day, kind, count };
  }
  const lastFolds = new Map(stored.map((document) => [`${itemOf(dimension, document)}|${document.day}`, document.lastFold]));
  for (const part of parts) {
    for (const [field, count] of part.fields) {
      const parsed = parseBreakdownField(field);
      if (!parsed || (range.from !== undefined && parsed.day < range.from) || (range.to !== undefined && parsed.day > range.to)) continue;
      if (part.fold > (lastFolds.get(`${parsed.item}|${parsed.day}`) ?? 0)) yield { ...parsed, count };
    }
  }
}

export function breakdownGrainOf(dimension: BreakdownDimension, scope: string): string {
  return `by-${dimension}@${scope}`;
}

export function isBreakdownGrain(grain: string): boolean {
  return grain.startsWith('by-');
}

export function parseBreakdownField(field: string): { day: string; kind: string; item: number } | null {
  const last = field.lastIndexOf('|');
  if (field[10] !== '|' || last <= 11) return null;
  return { day: field.slice(0, 10), kind: field.slice(11, last), item: Number(field.slice(last + 1)) };
}

/** The breakdown grains and fields a fact counts in (none for a filtered visit). */
export function breakdownCountsOf(allocation: CountedAllocation, kind: CountKind, day: string): Array<[string, string]> {
  if (kind.startsWith('filtered_')) return [];
  const { campaignId: c, publisherId: p, campaignOwnerAccountId: co, publisherOwnerAccountId: po } = allocation;
  const owners = po === co ? [`co:${co}`] : [`co:${co}`, `po:${po}`];
  const byCampaign = ['all', ...owners, `p:${p}`, `p:${p}|co:${co}`].map((scope): [string, string] => [breakdownGrainOf('campaign', scope), `${day}|${kind}|${c}`]);
  const byPublisher = ['all', ...owners, `c:${c}`, `c:${c}|po:${po}`].map((scope): [string, string] => [breakdownGrainOf('publisher', scope), `${day}|${kind}|${p}`]);
  return [...byCampaign, ...byPublisher];
}

/** An unfilled ad request counts in the platform breakdowns of `all` and `po:` only. */
export function unfilledBreakdownCountsOf(request: UnfilledAdRequest, day: string): Array<[string, string]> {
  const field = `${day}|${UNFILLED_KIND}|${request.publisherId}`;
  return [breakdownGrainOf('publisher', 'all'), breakdownGrainOf('publisher', `po:${request.publisherOwnerAccountId}`)].map((grain): [string, string] => [grain, field]);
}
