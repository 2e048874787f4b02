/**
 * The report's reads (API.md `stats/report`): the day or hour documents of the grains
 * `cp:<campaign>:<publisher>` (level `campaignPublisher`, one per campaign, platform and day, naming both
 * owners), over the records an account may see. Pure: the filters only.
 */
export interface PairQuery {
  /** Inclusive UTC dates, YYYY-MM-DD; absent means from the first day counted, or up to the last. */
  from?: string;
  to?: string;
  campaignId?: number;
  publisherId?: number;
  /** Records of campaigns or publishers owned by this account; undefined for an administrator (all). */
  visibleTo?: string;
}

/**
 * One filter per query: all the network's pairs for an administrator; an account's are those of its
 * campaigns, then those of its platforms showing others' campaigns (an own campaign on an own platform
 * counts once). Each is served by an index of `counts_days` (`{level, day}`, `{level,
 * campaignOwnerAccountId, day}`, `{level, publisherOwnerAccountId, day}`; with a campaign id, the key's).
 */
export function pairFiltersOf(query: PairQuery): Array<Record<string, unknown>> {
  const base: Record<string, unknown> = { level: 'campaignPublisher' };
  if (query.campaignId !== undefined) base.campaignId = query.campaignId;
  if (query.publisherId !== undefined) base.publisherId = query.publisherId;
  const day: Record<string, string> = {};
  if (query.from !== undefined) day.$gte = query.from;
  if (query.to !== undefined) day.$lte = query.to;
  if (Object.keys(day).length > 0) base.day = day;
  const viewer = query.visibleTo;
  if (viewer === undefined) return [base];
  return [
    { ...base, campaignOwnerAccountId: viewer },
    { ...base, publisherOwnerAccountId: viewer, campaignOwnerAccountId: { $ne: viewer } },
  ];
}
