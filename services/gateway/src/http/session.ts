/**
 * The session cookie, and its resolution with publisher-identity (GET /internal/sessions/resolve): the
 * account of a live session and when the session expires. Infrastructure trouble is a 503, not a sign-out.
 */
import { getJson, signedHeaders, type GetAnswer, type Principal, ServiceUnavailableError } from '@pilot/platform';
import type { UpstreamPool } from './upstreams';

const RESOLVE_PATH = '/internal/sessions/resolve';

export interface ResolvedSession {
  principal: Principal;
  /** When the session ends; null when publisher-identity did not say (then it is not kept). */
  expiresAt: Date | null;
}

export function cookieValue(cookieHeader: string | undefined, name: string): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(';')) {
    const index = part.indexOf('=');
    if (index < 0) continue;
    if (part.slice(0, index).trim() === name) {
      const value = part.slice(index + 1).trim();
      return /^[A-Za-z0-9_-]{16,128}$/.test(value) ? value : null;
    }
  }
  return null;
}

export async function resolveSession(identity: UpstreamPool, secret: string, sessionId: string, requestId: string): Promise<ResolvedSession | null> {
  const base = identity.pick();
  let response: GetAnswer;
  try {
    response = await getJson(`${base}${RESOLVE_PATH}`, {
      headers: { 'x-pilot-session': sessionId, ...signedHeaders(secret, { method: 'GET', url: RESOLVE_PATH, requestId }) },
      timeoutMs: 3000,
    });
  } catch {
    identity.markDown(base);
    throw new ServiceUnavailableError('publisher-identity');
  }
  if (response.status === 401 || response.status === 404) return null;
  if (!response.ok) throw new ServiceUnavailableError('publisher-identity', `session resolution answered ${response.status}`);
  const body = (await response.json()) as { accountId?: unknown; displayName?: unknown; admin?: unknown; expiresAt?: unknown };
  if (typeof body.accountId !== 'string' || !/^[0-9]{1,20}$/.test(body.accountId)) return null;
  const expiresAt = typeof body.expiresAt === 'string' ? new Date(body.expiresAt) : null;
  return {
    principal: {
      accountId: body.accountId,
      displayName: typeof body.displayName === 'string' ? body.displayName : body.accountId,
      admin: body.admin === true,
    },
    expiresAt: expiresAt && Number.isFinite(expiresAt.getTime()) ? expiresAt : null,
  };
}
