/**
 * Click link rules (SPEC.md "Click link", API.md): which opening of a link redirects, which is refused,
 * and which redirect counts as a click. Pure.
 */
import { isExpired, type AllocationClaims } from '@pilot/tokens';

/**
 * User agents of link-preview fetchers and crawlers: they open links to render a preview or index a page,
 * not because a person clicked. They get the redirect, but the visit is kept apart from the click total.
 */
const PREVIEW_AGENT_PATTERN = new RegExp(
  [
    'telegrambot',
    'twitterbot',
    'facebookexternalhit',
    'facebookcatalog',
    'meta-externalagent',
    'slackbot',
    'slack-imgproxy',
    'discordbot',
    'whatsapp',
    'linkedinbot',
    'skypeuripreview',
    'vkshare',
    'redditbot',
    'pinterest',
    'embedly',
    'iframely',
    'applebot',
    'googlebot',
    'bingbot',
    'yandexbot',
    'duckduckbot',
    'baiduspider',
    'mastodon',
    'viber',
    'snapchat',
    'google-inspectiontool',
    'bitlybot',
    'crawler',
    'spider',
  ].join('|'),
  'i',
);

export function isPreviewAgent(userAgent: string | undefined): boolean {
  return typeof userAgent === 'string' && PREVIEW_AGENT_PATTERN.test(userAgent);
}

export type ClickCounting = 'count' | 'head' | 'preview_agent';

/** Whether a redirect of this request counts as a click; HEAD and preview agents never do. */
export function clickCounting(method: string, userAgent: string | undefined): ClickCounting {
  if (method.toUpperCase() === 'HEAD') return 'head';
  if (isPreviewAgent(userAgent)) return 'preview_agent';
  return 'count';
}

export interface ClickContext {
  claims: AllocationClaims;
  now: Date;
  /** The campaign's destination while it is active, else null. */
  activeDestination: string | null;
  publisherActive: boolean;
}

export type ClickVerdict = { ok: true; destination: string } | { ok: false; code: 'link_expired' | 'campaign_inactive' | 'publisher_inactive' };

/** 410 reasons in the order a person would want to hear them; otherwise the campaign's destination. */
export function judgeClick({ claims, now, activeDestination, publisherActive }: ClickContext): ClickVerdict {
  if (isExpired(claims, now)) return { ok: false, code: 'link_expired' };
  if (activeDestination === null) return { ok: false, code: 'campaign_inactive' };
  if (!publisherActive) return { ok: false, code: 'publisher_inactive' };
  return { ok: true, destination: activeDestination };
}
