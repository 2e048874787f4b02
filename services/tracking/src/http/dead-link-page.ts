/**
 * What a person sees when they tap a click link that leads nowhere (API.md): a request that prefers
 * `text/html` (a browser) gets the 404 or 410 as a small page that says why (unknown link, expired link,
 * campaign no longer running, platform no longer showing offers); anything else (curl, fetch, a
 * publisher's server: `*\/*` or no Accept header) keeps the problem+json answer.
 *
 * The page is self-contained: its one style element is allowed by its own page policy through the
 * style's hash (the policy replaces the gateway's for this answer and allows nothing else: no script,
 * no image, no external resource). Its texts are fixed: nothing from the request or the token is
 * written into it.
 */
import { createHash } from 'node:crypto';
import { HttpError, PROBLEM_CONTENT_TYPE } from '@pilot/platform';
import type { ErrorRequestHandler, Request, Response } from 'express';

interface DeadLinkText {
  heading: string;
  explanation: string;
}

const NOT_VALID: DeadLinkText = {
  heading: 'This link is not valid',
  explanation: 'This sponsored link is not one we know. It may have been cut short when it was copied: try tapping it again where you found it.',
};

const EXPIRED: DeadLinkText = {
  heading: 'This link has expired',
  explanation: 'Sponsored links work for one hour after they are shown, and this one is older. A newer message from the same bot or channel may carry the offer again.',
};

const CAMPAIGN_ENDED: DeadLinkText = {
  heading: 'This offer has ended',
  explanation: 'The advertiser is no longer running this offer, so the link no longer leads to it.',
};

const PLATFORM_STOPPED: DeadLinkText = {
  heading: 'This offer is no longer available here',
  explanation: 'The bot or channel that showed this link no longer shows sponsored offers, so its links no longer lead anywhere.',
};

/** The statuses a dead link answers (API.md): 404 unknown or malformed, 410 expired or no longer active. */
export type DeadLinkStatus = 404 | 410;

/** The words for an answer's status and problem code; an unknown 410 code reads as an ended offer. */
export function deadLinkText(status: DeadLinkStatus, code?: string): DeadLinkText {
  if (status === 404) return NOT_VALID;
  if (code === 'link_expired' || code === 'token_expired') return EXPIRED;
  if (code === 'publisher_inactive') return PLATFORM_STOPPED;
  return CAMPAIGN_ENDED;
}

/** Readable from 320 px up, light or dark as the device is set; colours of 4.5:1 or more. */
const STYLE = [
  ':root{color-scheme:light dark;--ink:#1d2330;--muted:#4a5263;--bg:#f7f8fb;--card:#fff;--line:#d6dbe4;--accent:#2450b8}',
  '@media (prefers-color-scheme:dark){:root{--ink:#e8ebf2;--muted:#b4bccb;--bg:#12151c;--card:#1c212b;--line:#343b49;--accent:#8fb0ff}}',
  '*{box-sizing:border-box}',
  'body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;padding:16px;background:var(--bg);color:var(--ink);font:1rem/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}',
  'main{width:100%;max-width:32rem;background:var(--card);border:1px solid var(--line);border-radius:12px;padding:24px}',
  '.mark{margin:0 0 8px;color:var(--muted);font-size:.875rem;font-weight:600;letter-spacing:.04em;text-transform:uppercase}',
  'h1{margin:0 0 12px;font-size:1.5rem;line-height:1.25}',
  'p{margin:0 0 16px;overflow-wrap:anywhere}',
  'a{display:inline-flex;align-items:center;min-height:44px;color:var(--accent);font-weight:600}',
].join('');

const STYLE_HASH = `'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`;

/** This page's policy: its own style element and nothing else. */
export const DEAD_LINK_PAGE_POLICY = `default-src 'none'; style-src ${STYLE_HASH}; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/** The whole page: what it is, a heading, why, a link to the site's home (same origin, through the gateway). */
export function deadLinkPage(status: DeadLinkStatus, code?: string): string {
  const { heading, explanation } = deadLinkText(status, code);
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="robots" content="noindex">',
    `<title>${heading} · Publisher pilot</title>`,
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    '<main>',
    '<p class="mark">Sponsored link</p>',
    `<h1>${heading}</h1>`,
    `<p>${explanation}</p>`,
    '<p><a href="/">Go to the Publisher pilot home page</a></p>',
    '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/**
 * Whether the request prefers HTML to problem+json: the JSON types are offered first, so `*\/*` and a
 * missing Accept header choose JSON, and a browser's `text/html,...,*\/*;q=0.8` chooses HTML.
 */
export function prefersHtml(req: Request): boolean {
  return req.accepts([PROBLEM_CONTENT_TYPE, 'application/json', 'text/html']) === 'text/html';
}

function sendDeadLinkPage(res: Response, status: DeadLinkStatus, code: string): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Security-Policy', DEAD_LINK_PAGE_POLICY);
  res.status(status).type('text/html; charset=utf-8').send(deadLinkPage(status, code));
}

/**
 * Error handler for the click route, mounted before the service's problem+json handler: a 404 or 410 of a
 * request that prefers HTML becomes the page; every other error (503, ...) and every other request goes on
 * to problem+json. Both answers vary with Accept.
 */
export const deadLinkPages: ErrorRequestHandler = (error: unknown, req, res, next) => {
  if (!res.headersSent) res.vary('Accept');
  if (error instanceof HttpError && (error.status === 404 || error.status === 410) && !res.headersSent && prefersHtml(req)) {
    sendDeadLinkPage(res, error.status, error.code);
    return;
  }
  next(error);
};
