import type { ActiveCampaignCache } from '@pilot/campaign-cache';
import { CAMPAIGN_TRAITS_PATH, MAX_TRAIT_IDS, type CampaignTraitsItem } from '@pilot/contracts';
import type { Logger } from '@pilot/platform';
import type { CampaignTraits } from '../domain/report';

/** How long a campaign's language and format read from the campaign service are kept, and how many at most. */
const KEPT_MS = 10 * 60_000;
const KEPT_MAX = 100_000;

/** Where the report's language and format of a set of campaigns come from. */
export interface CampaignTraitsSource {
  traitsOf(campaignIds: Iterable<number>): Promise<Map<number, CampaignTraits>>;
}

/**
 * A campaign's language and format for the report: the active campaigns' cache holds those of the active
 * ones; the others are asked of the campaign service in one call per MAX_TRAIT_IDS ids
 * (CAMPAIGN_TRAITS_PATH) and kept a while (they never change once a campaign is created). When the
 * service cannot answer, those campaigns' language and format are unknown (null in the report) and the
 * report is answered all the same.
 */
export class CampaignTraitsLookup implements CampaignTraitsSource {
  private readonly kept = new Map<number, { traits: CampaignTraits; until: number }>();

  constructor(
    private readonly campaigns: Pick<ActiveCampaignCache, 'get'>,
    private readonly read: (ids: number[]) => Promise<CampaignTraitsItem[]>,
    private readonly now: () => number,
    private readonly logger: Pick<Logger, 'warn'>,
  ) {}

  async traitsOf(campaignIds: Iterable<number>): Promise<Map<number, CampaignTraits>> {
    const found = new Map<number, CampaignTraits>();
    const missing: number[] = [];
    const now = this.now();
    for (const id of new Set(campaignIds)) {
      const active = this.campaigns.get(id);
      const kept = this.kept.get(id);
      if (active) found.set(id, { language: active.language, format: active.format });
      else if (kept && kept.until > now) found.set(id, kept.traits);
      else missing.push(id);
    }
    for (let start = 0; start < missing.length; start += MAX_TRAIT_IDS) {
      let items: CampaignTraitsItem[];
      try {
        items = await this.read(missing.slice(start, start + MAX_TRAIT_IDS));
      } catch (error) {
        this.logger.warn({ err: error }, 'campaign language and format not read: the report shows them unknown');
        break;
      }
      for (const { campaignId, language, format } of items) {
        found.set(campaignId, { language, format });
        this.keep(campaignId, { language, format }, now);
      }
    }
    return found;
  }

  private keep(id: number, traits: CampaignTraits, now: number): void {
    this.kept.delete(id);
    if (this.kept.size >= KEPT_MAX) this.kept.delete(this.kept.keys().next().value as number);
    this.kept.set(id, { traits, until: now + KEPT_MS });
  }
}

/** Reads campaigns' language and format from the campaign service (signed, CAMPAIGN_TRAITS_PATH). */
export function campaignTraitsReader(internalGet: <T>(path: string) => Promise<T>): (ids: number[]) => Promise<CampaignTraitsItem[]> {
  return async (ids) => {
    const answer = await internalGet<{ items?: unknown }>(`${CAMPAIGN_TRAITS_PATH}?ids=${ids.join(',')}`);
    if (!Array.isArray(answer.items)) throw new Error(`${CAMPAIGN_TRAITS_PATH} answered without an items array`);
    return (answer.items as Array<Partial<CampaignTraitsItem>>).filter(
      (item): item is CampaignTraitsItem => typeof item.campaignId === 'number' && typeof item.language === 'string' && typeof item.format === 'string',
    );
  };
}
