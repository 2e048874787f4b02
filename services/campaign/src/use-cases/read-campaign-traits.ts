import { MAX_TRAIT_IDS, type CampaignTraitsItem } from '@pilot/contracts';
import { positiveIntOf, problems } from '@pilot/platform';
import type { CampaignDeps } from './deps';

/** `ids`: one to MAX_TRAIT_IDS positive integers separated by commas; anything else 400 `invalid_ids`. */
export function traitIdsOf(value: unknown): number[] {
  const ids = typeof value === 'string' && value !== '' ? value.split(',').map((part) => positiveIntOf(part)) : [];
  if (ids.length === 0 || ids.length > MAX_TRAIT_IDS || ids.some((id) => id === null)) {
    throw problems.badRequest('invalid_ids', `ids must be 1 to ${MAX_TRAIT_IDS} campaign ids separated by commas`);
  }
  return [...new Set(ids as number[])];
}

/** The language and format of the campaigns stored among `ids` (CAMPAIGN_TRAITS_PATH). */
export async function readCampaignTraits(deps: Pick<CampaignDeps, 'repository'>, ids: number[]): Promise<{ items: CampaignTraitsItem[] }> {
  const found = await deps.repository.traitsOf(ids);
  return { items: found.map(({ campaignId, language, format }) => ({ campaignId, language, format })) };
}
