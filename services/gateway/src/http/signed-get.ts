/** A GET of an upstream service with the caller's signed identity (docs/security.md); no answer in 5 s: 503. */
import { getJson, signedHeaders, type GetAnswer, type Principal, ServiceUnavailableError } from '@pilot/platform';
import type { Upstream } from '../domain/routing';
import type { Upstreams } from './upstreams';

const TIMEOUT_MS = 5000;

export async function signedGet(upstreams: Upstreams, upstream: Upstream, secret: string, path: string, principal: Principal, requestId: string): Promise<GetAnswer> {
  const base = upstreams.pool(upstream).pick();
  try {
    return await getJson(`${base}${path}`, {
      headers: signedHeaders(secret, { method: 'GET', url: path, accountId: principal.accountId, admin: principal.admin, displayName: principal.displayName, requestId }),
      timeoutMs: TIMEOUT_MS,
      agent: upstreams.agent,
    });
  } catch {
    throw new ServiceUnavailableError(upstream);
  }
}
