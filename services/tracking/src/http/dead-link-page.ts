/**
 * What a person sees when they tap a click link that leads nowhere (API.md): a request that prefers
 * `text/html` (a browser) gets the 404 or 410 as a small page of the site; anything else (curl, fetch,
 * a publisher's server: `*\/*` or no Accept header) keeps the problem+json answer.
 *
 * The page is self-contained and fits the gateway's page policy (CSP `default-src 'self'`, `style-src
 * 'self'`, no inline script or style): no script, no style element or attribute, no external resource,
 * plain semantic HTML that any browser lays out readably. Its texts are fixed: nothing from the request
 * or the token is written into it.
 */
import { HttpError, PROBLEM_CONTENT_TYPE } from '@pilot/problems';
import type { ErrorRequestHandler, Request, Response } from 'express';

interface DeadLinkText {
  heading: string;
  explanation: string;
}

const NOT_VALID: DeadLinkText = {
  heading: 'This link is not valid',
  explanation: 'This sponsored link is not one we know. It may have been cut short when it was copied.',
};

const ENDED: DeadLinkText = {
  heading: 'This offer has ended',
  explanation: 'The offer behind this sponsored link is no longer available. Sponsored links work for one hour after they are shown.',
};

/** The statuses a dead link answers (API.md): 404 unknown or malformed, 410 expired or no longer active. */
export type DeadLinkStatus = 404 | 410;

export function deadLinkText(status: DeadLinkStatus): DeadLinkText {
  return status === 404 ? NOT_VALID : ENDED;
}

/** The whole page: a heading, one sentence, a link to the site's home (same origin, through the gateway). */
export function deadLinkPage(status: DeadLinkStatus): string {
  const { heading, explanation } = deadLinkText(status);
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="robots" content="noindex">',
    `<title>${heading} · Publisher pilot</title>`,
    '</head>',
    '<body>',
    '<main>',
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

function sendDeadLinkPage(res: Response, status: DeadLinkStatus): void {
  res.setHeader('Cache-Control', 'no-store');
  res.status(status).type('text/html; charset=utf-8').send(deadLinkPage(status));
}

/**
 * Error handler for the click route, mounted before the service's problem+json handler: a 404 or 410 of a
 * request that prefers HTML becomes the page; every other error (503, ...) and every other request goes on
 * to problem+json. Both answers vary with Accept.
 */
export const deadLinkPages: ErrorRequestHandler = (error: unknown, req, res, next) => {
  if (!res.headersSent) res.vary('Accept');
  if (error instanceof HttpError && (error.status === 404 || error.status === 410) && !res.headersSent && prefersHtml(req)) {
    sendDeadLinkPage(res, error.status);
    return;
  }
  next(error);
};
