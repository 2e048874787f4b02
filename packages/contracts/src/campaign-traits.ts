/**
 * The `GET /internal/campaigns/traits?ids=<id>,<id>,...` contract: the campaign service answers
 * `{items: CampaignTraitsItem[]}`, the language and format of each of those campaigns it stores (a campaign
 * it does not is left out). Up to MAX_TRAIT_IDS ids a call; more, or anything but positive integers, is
 * 400 `invalid_ids`. A campaign's language and format never change once it is created.
 */
export const CAMPAIGN_TRAITS_PATH = '/internal/campaigns/traits';
export const MAX_TRAIT_IDS = 500;

export interface CampaignTraitsItem {
  campaignId: number;
  language: string;
  format: string;
}
