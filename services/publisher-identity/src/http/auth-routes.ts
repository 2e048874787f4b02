/**
 * API.md "Workspace sign-in", thin: parse, call the sign-in use cases, map the result. Also the gateway's
 * GET /internal/sessions/resolve (`{accountId, displayName, admin, expiresAt}`), and
 * GET /internal/accounts/{accountId}/sign-in (`{lastSignInAt}`, null for an account never seen) for the
 * notification service, and GET /internal/accounts/names?ids= (`{names: {<account>: <display name>}}`) for
 * the gateway's audit.
 *
 * Decisions API.md leaves to this service:
 * - The binding cookie `pilot_login` (HttpOnly, SameSite=Lax, Path=/api/auth/login) holds a random value
 *   whose hash is stored with the request; each POST /api/auth/login issues a new one. It lives an hour
 *   longer than the request (BINDING_COOKIE_MAX_AGE_SECONDS), so the page that is still polling when the
 *   request expires is answered `{status: "expired"}` (API.md) instead of 404: with a cookie that lived
 *   exactly as long as the request, the browser dropped it at the moment of expiry.
 * - Polls after the session was issued answer `{status: "confirmed"}` without a new cookie.
 * - The webhook answers 200 with an empty body when the update has nothing to say (or was seen before),
 *   200 with a `sendMessage` body replying to a person's `/start` (the question, with Confirm and Cancel),
 *   200 with an `editMessageText` (or `answerCallbackQuery`) body when a button of the question is pressed.
 *   A body that is not JSON is ignored (200); one over 64 KiB is 413, as at the gateway however it is
 *   sent. Only infrastructure trouble answers 503, so the platform retries.
 */
import { clientIpOf, problems, jsonBody } from '@pilot/platform';
import type { Express, Request, RequestHandler } from 'express';
import { BINDING_PATTERN, REQUEST_ID_PATTERN, SESSION_ID_PATTERN, constantTimeEqual } from '../domain/secrets';
import { LOGIN_REQUEST_TTL_MS } from '../domain/sign-in';
import { createLogin } from '../use-cases/create-login';
import type { IdentityDeps } from '../use-cases/deps';
import { handleBotUpdate } from '../use-cases/handle-bot-update';
import { logOut } from '../use-cases/log-out';
import { pollLogin } from '../use-cases/poll-login';
import { readLastSignIn } from '../use-cases/read-last-sign-in';
import { readAccountNames } from '../use-cases/read-account-names';
import { resolveSession } from '../use-cases/resolve-session';
import { clearCookie, readCookie, setCookie } from './cookies';

export interface AuthRouteOptions {
  webhookSecret: string;
  sessionCookie: string;
  sessionTtlSeconds: number;
  secureCookies: boolean;
}

export const BINDING_COOKIE = 'pilot_login';
/** The request's 5 minutes and an hour in which a returning poll still learns `expired` (the request is kept a day). */
export const BINDING_COOKIE_MAX_AGE_SECONDS = LOGIN_REQUEST_TTL_MS / 1000 + 60 * 60;
const BINDING_PATH = '/api/auth/login';
export const SESSION_HEADER = 'x-pilot-session';
const WEBHOOK_SECRET_HEADER = 'x-telegram-bot-api-secret-token';

export function mountAuthRoutes(app: Express, deps: IdentityDeps, options: AuthRouteOptions): void {
  const { sessionCookie, secureCookies } = options;
  const noStore: RequestHandler = (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  };
  const sessionOf = (req: Request) => readCookie(req, sessionCookie, SESSION_ID_PATTERN);

  app.post('/api/auth/login', noStore, async (req, res) => {
    const login = await createLogin(deps, clientIpOf(req), req.headers['user-agent']);
    setCookie(res, BINDING_COOKIE, login.binding, { path: BINDING_PATH, maxAgeSeconds: BINDING_COOKIE_MAX_AGE_SECONDS, secure: secureCookies });
    res.status(201).json({ requestId: login.requestId, code: login.code, botUrl: login.botUrl, expiresAt: login.expiresAt });
  });

  // The secret is checked before the body is even read; a wrong one changes nothing.
  const webhookSecret: RequestHandler = (req, _res, next) => {
    const given = req.headers[WEBHOOK_SECRET_HEADER];
    if (typeof given !== 'string' || !constantTimeEqual(given, options.webhookSecret)) {
      next(problems.unauthorized('webhook_secret_invalid', 'The webhook secret token is missing or wrong'));
      return;
    }
    next();
  };
  // The gateway's own limit (MAX_BODY_BYTES, 64 KiB): an update is a few kilobytes.
  const parseUpdate = jsonBody('64kb');
  const tolerantBody: RequestHandler = (req, res, next) => {
    parseUpdate(req, res, (error?: unknown) => {
      if ((error as { type?: string } | undefined)?.type === 'entity.too.large') {
        next(error);
        return;
      }
      if (error) req.body = undefined;
      next();
    });
  };

  app.post('/api/auth/telegram-webhook', webhookSecret, tolerantBody, async (req, res) => {
    const reply = await handleBotUpdate(deps, req.body);
    if (!reply) {
      res.status(200).end();
      return;
    }
    res.status(200).json(reply);
  });

  app.get('/api/auth/login/:requestId', noStore, async (req, res) => {
    const requestId = String(req.params.requestId);
    const notFound = problems.notFound('login_request_not_found', 'No such sign-in request in this browser');
    if (!REQUEST_ID_PATTERN.test(requestId)) throw notFound;
    const result = await pollLogin(deps, requestId, readCookie(req, BINDING_COOKIE, BINDING_PATTERN));
    if (!result.found) throw notFound;
    if (!result.session) {
      res.json({ status: result.status });
      return;
    }
    setCookie(res, sessionCookie, result.session.id, { path: '/', maxAgeSeconds: options.sessionTtlSeconds, secure: secureCookies });
    clearCookie(res, BINDING_COOKIE, { path: BINDING_PATH, secure: secureCookies });
    res.json({ status: 'confirmed', account: result.session.account });
  });

  app.get('/api/auth/session', noStore, async (req, res) => {
    const sessionId = sessionOf(req);
    const session = sessionId ? await resolveSession(deps, sessionId) : null;
    if (!session) throw problems.unauthorized('not_signed_in', 'Not signed in');
    res.json(session.account);
  });

  app.post('/api/auth/logout', noStore, async (req, res) => {
    const sessionId = sessionOf(req);
    if (sessionId) await logOut(deps, sessionId);
    clearCookie(res, sessionCookie, { path: '/', secure: secureCookies });
    res.status(204).end();
  });

  app.get('/internal/accounts/:accountId/sign-in', noStore, async (req, res) => {
    const accountId = String(req.params.accountId);
    if (!/^[0-9]{1,20}$/.test(accountId)) throw problems.notFound('account_not_found', 'No such account');
    const lastSignInAt = await readLastSignIn(deps, accountId);
    res.json({ lastSignInAt: lastSignInAt ? lastSignInAt.toISOString() : null });
  });

  // The gateway names who acted in a page of the audit: up to 100 account ids, comma-separated.
  app.get('/internal/accounts/names', noStore, async (req, res) => {
    const ids = typeof req.query.ids === 'string' ? req.query.ids.split(',') : [];
    if (ids.length === 0 || ids.length > 100 || !ids.every((id) => /^[0-9]{1,20}$/.test(id))) throw problems.badRequest('invalid_ids', 'ids must be up to 100 account ids separated by commas');
    res.json({ names: Object.fromEntries(await readAccountNames(deps, ids)) });
  });

  app.get('/internal/sessions/resolve', noStore, async (req, res) => {
    const given = req.headers[SESSION_HEADER];
    const sessionId = typeof given === 'string' && SESSION_ID_PATTERN.test(given) ? given : null;
    const session = sessionId ? await resolveSession(deps, sessionId) : null;
    if (!session) throw problems.unauthorized('session_invalid', 'No live session with this id');
    res.json({ ...session.account, expiresAt: session.expiresAt.toISOString() });
  });
}
