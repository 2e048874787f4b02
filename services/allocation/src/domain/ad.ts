/**
 * The Ad object of SPEC.md, built from a selected campaign and the two tokens of the allocation.
 * Field names are snake_case because SPEC.md fixes them; the constants are the spec's constants.
 */
import type { CachedCampaign } from '@pilot/campaign-cache';
import type { Ad } from '@pilot/contracts';
import { TOKEN_LIFETIME_SECONDS } from '@pilot/tokens';

export const CLICK_PATH = '/api/network/click/';
export const BILLING = 'pilot_non_billable' as const;

/** The Ad contract (@pilot/contracts), the 200 of GET /api/network/ad. */
export type { Ad };

/** The absolute click link: PUBLIC_BASE_URL's origin and path prefix + /api/network/click/ + token. */
export function clickUrlOf(publicBaseUrl: string, clickToken: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}${CLICK_PATH}${clickToken}`;
}

/** The creative fields an Ad is built from: a cached campaign's, or the sandbox's test creative. */
export type Creative = Pick<CachedCampaign, 'campaignId' | 'title' | 'text' | 'buttonText' | 'imageUrl'>;

export function buildAd<C extends Creative>(campaign: C, tokens: { clickUrl: string; deliveryToken: string }): Ad {
  return {
    campaign_id: campaign.campaignId,
    title: campaign.title,
    text: campaign.text,
    button_text: campaign.buttonText,
    image_url: campaign.imageUrl ?? null,
    click_url: tokens.clickUrl,
    delivery_token: tokens.deliveryToken,
    expires_in: TOKEN_LIFETIME_SECONDS,
    sponsored: true,
    billing: BILLING,
  };
}
