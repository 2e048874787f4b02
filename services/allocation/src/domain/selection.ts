/**
 * The in-memory index the ad endpoint selects from (SPEC.md "Selection rules"):
 * - only active campaigns (the campaign cache tells the index what is active);
 * - campaign format equal to the publisher's type;
 * - campaign language equal to the requested one, or `all`;
 * - campaigns owned by the publisher's own account excluded;
 * - uniform random among the campaigns that qualify.
 *
 * Layout: one bucket per (format, language). A bucket is a dense array (swap-remove, so add and remove
 * are O(1)) plus a count of campaigns per owner account. A request looks at two buckets, `format:lang`
 * and `format:all`, and treats them as one virtual array of n = n1 + n2 campaigns, e of which belong to
 * the excluded owner (read from the per-owner counts, O(1)).
 *
 * - e = 0: one draw.
 * - 2e <= n: rejection sampling: draw uniformly over the n and redraw when the owner's campaign comes up.
 *   Each draw succeeds with probability (n - e) / n >= 1/2, so the expected number of draws is at most 2
 *   whatever the number of campaigns. Every accepted draw is uniform over the n - e eligible campaigns.
 * - 2e > n: the owner holds most of the candidates, so n < 2e. An account holds at most 100 campaign
 *   records (SPEC.md), so n < 200 here: enumerate the eligible campaigns and pick the k-th. Bounded by
 *   the per-account limit, not by the number of campaigns in the network.
 * (After 64 unlucky rejections, probability below 2^-64, the enumeration also serves as the fallback.)
 */
import type { CachedCampaign, CampaignCacheListener } from '@pilot/campaign-cache';
import type { NoFillReason } from '@pilot/contracts';

export type Random = () => number;

const MAX_REJECTIONS = 64;

class Bucket {
  readonly items: CachedCampaign[] = [];
  private readonly position = new Map<number, number>();
  private readonly perOwner = new Map<string, number>();

  get size(): number {
    return this.items.length;
  }

  add(campaign: CachedCampaign): void {
    this.position.set(campaign.campaignId, this.items.length);
    this.items.push(campaign);
    this.perOwner.set(campaign.ownerAccountId, (this.perOwner.get(campaign.ownerAccountId) ?? 0) + 1);
  }

  remove(campaignId: number): void {
    const index = this.position.get(campaignId);
    if (index === undefined) return;
    const removed = this.items[index] as CachedCampaign;
    const last = this.items.pop() as CachedCampaign;
    if (index < this.items.length) {
      this.items[index] = last;
      this.position.set(last.campaignId, index);
    }
    this.position.delete(campaignId);
    const left = (this.perOwner.get(removed.ownerAccountId) ?? 1) - 1;
    if (left > 0) this.perOwner.set(removed.ownerAccountId, left);
    else this.perOwner.delete(removed.ownerAccountId);
  }

  indexOf(campaignId: number): number {
    return this.position.get(campaignId) ?? -1;
  }

  ownedBy(ownerAccountId: string): number {
    return this.perOwner.get(ownerAccountId) ?? 0;
  }
}

/** What the index could serve a platform of `format` owned by someone: per language (`all` under its own name). */
export interface Demand {
  format: 'bot' | 'channel';
  activeCampaigns: number;
  languages: Array<{ language: string; activeCampaigns: number }>;
  /** Why an ad request in a language not listed gets nothing now: no_campaign_for_language when some language is served. */
  noFillReason: NoFillReason;
}

export interface SelectionQuery {
  format: 'bot' | 'channel';
  language: string;
  excludedOwnerAccountId: string;
}

export class CampaignIndex implements CampaignCacheListener {
  private readonly buckets = new Map<string, Bucket>();
  /** campaignId -> the bucket that holds it, so a pause finds it in O(1). */
  private readonly locations = new Map<number, Bucket>();
  /** Active campaigns per format, so a 204 says in O(1) whether the format has any. */
  private readonly perFormat = new Map<string, number>();

  constructor(private readonly random: Random = Math.random) {}

  private static keyOf(format: string, language: string): string {
    return `${format}:${language}`;
  }

  upsert(campaign: CachedCampaign): void {
    this.remove(campaign.campaignId);
    const key = CampaignIndex.keyOf(campaign.format, campaign.language);
    let bucket = this.buckets.get(key);
    if (!bucket) {
      bucket = new Bucket();
      this.buckets.set(key, bucket);
    }
    bucket.add(campaign);
    this.locations.set(campaign.campaignId, bucket);
    this.perFormat.set(campaign.format, (this.perFormat.get(campaign.format) ?? 0) + 1);
  }

  remove(campaignId: number): void {
    const bucket = this.locations.get(campaignId);
    if (!bucket) return;
    const format = bucket.items[bucket.indexOf(campaignId)]?.format;
    bucket.remove(campaignId);
    this.locations.delete(campaignId);
    if (format !== undefined) this.perFormat.set(format, (this.perFormat.get(format) ?? 1) - 1);
  }

  reset(campaigns: CachedCampaign[]): void {
    this.buckets.clear();
    this.locations.clear();
    this.perFormat.clear();
    for (const campaign of campaigns) this.upsert(campaign);
  }

  size(): number {
    return this.locations.size;
  }

  has(campaignId: number): boolean {
    return this.locations.has(campaignId);
  }

  /** A uniformly random qualifying campaign, or null when none qualifies. */
  pick(query: SelectionQuery): CachedCampaign | null {
    const parts = this.candidatesOf(query);
    let total = 0;
    let excluded = 0;
    for (const part of parts) {
      total += part.size;
      excluded += part.ownedBy(query.excludedOwnerAccountId);
    }
    const eligible = total - excluded;
    if (eligible <= 0) return null;

    if (2 * excluded <= total) {
      for (let attempt = 0; attempt < MAX_REJECTIONS; attempt += 1) {
        const candidate = this.at(parts, this.draw(total));
        if (candidate.ownerAccountId !== query.excludedOwnerAccountId) return candidate;
      }
    }
    let wanted = this.draw(eligible);
    for (const part of parts) {
      for (const candidate of part.items) {
        if (candidate.ownerAccountId === query.excludedOwnerAccountId) continue;
        if (wanted === 0) return candidate;
        wanted -= 1;
      }
    }
    return null; // unreachable: the counts said `eligible` campaigns exist
  }

  /**
   * Why `pick` finds nothing for this query, from counts alone: nothing active at all, nothing of the
   * publisher's format, nothing in the language (or `all`), or only the publisher owner's own campaigns.
   */
  noFillReason(query: SelectionQuery): NoFillReason {
    if (this.locations.size === 0) return 'no_active_campaign';
    if ((this.perFormat.get(query.format) ?? 0) === 0) return 'no_campaign_for_format';
    const candidates = this.candidatesOf(query).reduce((sum, part) => sum + part.size, 0);
    return candidates === 0 ? 'no_campaign_for_language' : 'own_campaigns_only';
  }

  /**
   * The active campaigns a platform of `format` owned by `excludedOwnerAccountId` could be served, per
   * language, its owner's own left out. One look at each of the format's buckets (one per language in use).
   */
  demand(format: 'bot' | 'channel', excludedOwnerAccountId: string): Demand {
    const languages: Array<{ language: string; activeCampaigns: number }> = [];
    const prefix = CampaignIndex.keyOf(format, '');
    for (const [key, bucket] of this.buckets) {
      if (!key.startsWith(prefix)) continue;
      const count = bucket.size - bucket.ownedBy(excludedOwnerAccountId);
      if (count > 0) languages.push({ language: key.slice(prefix.length), activeCampaigns: count });
    }
    languages.sort((a, b) => b.activeCampaigns - a.activeCampaigns || a.language.localeCompare(b.language));
    const activeCampaigns = languages.reduce((sum, entry) => sum + entry.activeCampaigns, 0);
    // The format's campaigns all belong to the owner when it has some and none counted.
    const noFillReason: NoFillReason =
      activeCampaigns > 0
        ? 'no_campaign_for_language'
        : this.locations.size === 0
          ? 'no_active_campaign'
          : (this.perFormat.get(format) ?? 0) === 0
            ? 'no_campaign_for_format'
            : 'own_campaigns_only';
    return { format, activeCampaigns, languages, noFillReason };
  }

  /** A uniform integer in [0, bound). */
  private draw(bound: number): number {
    return Math.min(bound - 1, Math.floor(this.random() * bound));
  }

  /** The non-empty buckets a query draws from: its format in its language, and in `all`. */
  private candidatesOf(query: SelectionQuery): Bucket[] {
    const parts: Bucket[] = [];
    const exact = this.buckets.get(CampaignIndex.keyOf(query.format, query.language));
    if (exact && exact.size > 0) parts.push(exact);
    if (query.language !== 'all') {
      const wildcard = this.buckets.get(CampaignIndex.keyOf(query.format, 'all'));
      if (wildcard && wildcard.size > 0) parts.push(wildcard);
    }
    return parts;
  }

  private at(parts: Bucket[], index: number): CachedCampaign {
    let rest = index;
    for (const part of parts) {
      if (rest < part.size) return part.items[rest] as CachedCampaign;
      rest -= part.size;
    }
    throw new RangeError(`index ${index} outside the candidates`);
  }
}
