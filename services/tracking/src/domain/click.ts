/**
 * Click link rules (SPEC.md "Click link", API.md): which opening of a link redirects, which is refused,
 * and which redirect counts as a click. Pure.
 */
import { isExpired, type AllocationClaims } from '@pilot/tokens';

/**
 * Link-preview fetchers and crawlers: they open links to render a preview or index a page, not because a
 * person clicked. They get the redirect, but the visit is kept apart from the click total.
 *
 * Each fetcher is matched by the product token it sends (with its `/version` or at the start of the user
 * agent where that is how it identifies itself), never by a bare word: the in-app browsers of the same
 * apps carry the app's name too (`Snapchat/12.44`, `[Pinterest/iOS]`, `Viber/20.3`, `Instagram 302.0`,
 * `[FBAN/FBIOS;FBAV/...]`, `Line/13.3`), and a person opening the link there is a click.
 */
const PREVIEW_AGENTS: readonly RegExp[] = [
  /^TelegramBot\b/, // Telegram's preview; its in-app browser sends Telegram-Android/...
  /\bTwitterbot\//,
  /\bfacebookexternalhit\//,
  /\bfacebookcatalog\//,
  /\bmeta-externalagent\//,
  /^Facebot\b/,
  /^Slackbot-LinkExpanding\b/,
  /^Slackbot \d/,
  /^Slack-ImgProxy\b/,
  /\bDiscordbot\//,
  /^WhatsApp\//, // the preview fetcher; WhatsApp opens links in the system browser
  /^LinkedInBot\//,
  /\bSkypeUriPreview\b/,
  /\bvkShare;/,
  /\bredditbot\//,
  /\bPinterestbot\//,
  /^Pinterest\/0\.\d/, // the older Pinterest fetcher; the app's browser ends in [Pinterest/iOS] or [Pinterest/Android]
  /^Snap URL Preview Service\b/,
  /\bEmbedly\//,
  /^Iframely\//,
  /\bApplebot\//,
  /\bGooglebot(?:-Image|-News|-Video)?\//,
  /\bGoogle-InspectionTool\//,
  /\bbingbot\//,
  /\bYandexBot\//,
  /\bDuckDuckBot(?:-Https)?\//,
  /\bBaiduspider\b/,
  /^Mastodon\//,
  /^http\.rb\/\S+ \(Mastodon\//,
  /\bbitlybot\//,
];

export function isPreviewAgent(userAgent: string | undefined): boolean {
  return typeof userAgent === 'string' && PREVIEW_AGENTS.some((pattern) => pattern.test(userAgent));
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

/** The site's page that explains the sandbox: where a test ad's click link leads. */
export const SANDBOX_PAGE_PATH = '/sandbox';

export function sandboxPageOf(publicBaseUrl: string): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}${SANDBOX_PAGE_PATH}`;
}
