/** Which upstream serves a path, and what the gateway must do before forwarding it. */
export type Upstream = 'identity' | 'campaign' | 'allocation' | 'tracking' | 'placement' | 'notification' | 'web';

export interface RouteDecision {
  upstream: Upstream;
  /** The workspace session must be resolved; without one the answer is 401. */
  needsSession: boolean;
  /** A write here must come from the site's own origin. */
  originChecked: boolean;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function isWrite(method: string): boolean {
  return WRITE_METHODS.has(method.toUpperCase());
}

function under(path: string, prefix: string): boolean {
  return path === prefix || path.startsWith(`${prefix}/`);
}

/** Every service's probes and metrics: for operators inside the cluster, never forwarded from outside. */
const OPERATOR_PATHS = ['/metrics', '/readyz', '/livez'];

/**
 * null: not routable from outside (internal and operator paths). Decided on the path in lower case: the
 * services route case-sensitively, but a path is never let through to one of them by its letter case.
 */
export function routeOf(rawPath: string): RouteDecision | null {
  const path = rawPath.toLowerCase();
  if (under(path, '/internal') || under(path, '/api/internal')) return null;
  if (OPERATOR_PATHS.some((operatorPath) => under(path, operatorPath))) return null;
  if (under(path, '/api/auth')) {
    return { upstream: 'identity', needsSession: false, originChecked: path !== '/api/auth/telegram-webhook' };
  }
  if (under(path, '/api/workspace')) {
    const workspace = { needsSession: true, originChecked: true };
    if (under(path, '/api/workspace/publishers')) return { upstream: 'identity', ...workspace };
    if (under(path, '/api/workspace/campaigns')) return { upstream: 'campaign', ...workspace };
    if (under(path, '/api/workspace/stats')) return { upstream: 'tracking', ...workspace };
    if (under(path, '/api/workspace/placements')) return { upstream: 'placement', ...workspace };
    if (under(path, '/api/workspace/notifications')) return { upstream: 'notification', ...workspace };
    return { upstream: 'identity', ...workspace };
  }
  if (path === '/api/network/ad' || path === '/api/network/openapi.json') {
    return { upstream: 'allocation', needsSession: false, originChecked: false };
  }
  if (path === '/api/network/delivery' || under(path, '/api/network/click')) {
    return { upstream: 'tracking', needsSession: false, originChecked: false };
  }
  if (under(path, '/api/site')) return { upstream: 'placement', needsSession: false, originChecked: false };
  if (under(path, '/api')) return null;
  return { upstream: 'web', needsSession: false, originChecked: false };
}

/** A write is accepted only when its Origin header is exactly the site's own origin (missing: refused). */
export function originAllowed(originHeader: string | undefined, siteOrigin: string): boolean {
  return typeof originHeader === 'string' && originHeader === siteOrigin;
}

/** Audit entities and the upstream that owns each. */
export const AUDIT_OWNERS: Record<string, Upstream> = {
  campaign: 'campaign',
  publisher: 'identity',
  account: 'identity',
  placement: 'placement',
};
