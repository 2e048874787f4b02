/**
 * The gateway's own routes: the audit and a platform's demand composed, the workspace API's document, then one dispatcher
 * that decides the upstream, checks the origin of writes, resolves the session where the workspace needs
 * one, holds each account's workspace writes to their limit, and forwards.
 */
import { workspaceOpenApi } from '@pilot/contracts';
import { HttpError, problems, type Principal, type RedisLimiter } from '@pilot/platform';
import type { Express, Request } from 'express';
import { bodyRefusal } from '../domain/body-limits';
import { isWrite, originAllowed, routeOf } from '../domain/routing';
import { composeAudit } from './audit';
import { composeDemand } from './demand';
import type { Forward } from './proxy';
import { cookieValue } from './session';
import type { SessionCache } from './session-cache';
import type { Upstreams } from './upstreams';

export interface GatewayRouteOptions {
  upstreams: Upstreams;
  forward: Forward;
  secret: string;
  siteOrigin: string;
  sessionCookie: string;
  /** Resolves the session cookie, from what it keeps when it may (SESSION_CACHE_MS). */
  sessions: SessionCache;
  maxBodyBytes: number;
  /** Workspace writes per account (WORKSPACE_WRITE_LIMIT_POINTS a minute), shared by every replica. */
  workspaceWriteLimit: RedisLimiter;
}

/** Refused before any upstream sees it, so nothing is counted; like every network answer, it is not to be stored. */
function bodyNotAllowed(method: string): HttpError {
  const refusal = problems.badRequest('body_not_allowed', `${method} requests carry no body`);
  return new HttpError(refusal.status, refusal.code, refusal.title, refusal.detail, undefined, { 'Cache-Control': 'no-store' });
}

export function mountRoutes(app: Express, options: GatewayRouteOptions): void {
  const { upstreams, forward, secret, siteOrigin, sessionCookie, sessions, maxBodyBytes, workspaceWriteLimit } = options;

  async function principalOf(req: Request): Promise<Principal> {
    const sessionId = cookieValue(req.headers.cookie, sessionCookie);
    const principal = sessionId ? await sessions.principalOf(sessionId, String(req.id)) : null;
    if (!principal) throw problems.unauthorized('not_signed_in', 'Sign in to use the workspace');
    return principal;
  }

  app.get('/api/workspace/audit', async (req, res) => {
    const principal = await principalOf(req);
    res.setHeader('Cache-Control', 'no-store');
    res.json(await composeAudit(upstreams, secret, principal, req.query as Record<string, unknown>, String(req.id)));
  });

  app.get('/api/workspace/publishers/:id/demand', async (req, res) => {
    const principal = await principalOf(req);
    res.setHeader('Cache-Control', 'no-store');
    res.json(await composeDemand(upstreams, secret, principal, String(req.params.id), String(req.id)));
  });

  // Public, like the network API's document; built once from the contracts.
  const workspaceDocument = workspaceOpenApi();
  app.get('/api/workspace/openapi.json', (_req, res) => {
    res.json(workspaceDocument);
  });

  app.use(async (req, res, next) => {
    const route = routeOf(req.path);
    if (!route) throw problems.notFound('route_not_found', 'No such resource');
    if (route.originChecked && isWrite(req.method) && !originAllowed(req.headers.origin, siteOrigin)) {
      throw problems.forbidden('origin_refused', 'Workspace changes must come from the site itself');
    }
    const refusal = bodyRefusal(req.method, req.headers['content-length'], req.headers['transfer-encoding'], maxBodyBytes);
    if (refusal === 'body_not_allowed') throw bodyNotAllowed(req.method);
    if (refusal === 'payload_too_large') throw problems.payloadTooLarge(`Request bodies are limited to ${maxBodyBytes} bytes`);
    const principal = route.needsSession ? await principalOf(req) : null;
    if (principal && isWrite(req.method)) {
      const decision = await workspaceWriteLimit.consume(principal.accountId);
      if (!decision.allowed) throw problems.tooManyRequests(decision.retryAfterSeconds, 'Too many workspace changes from this account; wait a moment');
    }
    forward(req, res, next, upstreams.pool(route.upstream), principal, req.ip ?? req.socket.remoteAddress ?? 'unknown');
  });
}
