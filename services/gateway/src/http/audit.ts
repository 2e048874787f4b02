/**
 * GET /api/workspace/audit: each service keeps the audit of its own records; the gateway asks the owners
 * (all three, or the one owning `entity`; with the `action` and the period `from`..`to` asked) with the caller's signed identity for one entry more than the
 * page, each only for entries after the cursor's position (`@pilot/contracts` audit), merges them in the
 * audit's order and cuts the page. Its cursor is the position of its last entry, so every page costs the
 * same however deep it is.
 */
import { AUDIT_POSITION, newestFirst, type AuditItem, type InternalAuditItem } from '@pilot/contracts';
import { auditNarrowingOf, auditNarrowingParams, decodeCursor, encodeCursor, pageLimitOf, queryString, type Page, type Principal, problems, ServiceUnavailableError } from '@pilot/platform';
import { AUDIT_OWNERS, type Upstream } from '../domain/routing';
import { signedGet } from './signed-get';
import type { Upstreams } from './upstreams';

export async function composeAudit(
  upstreams: Upstreams,
  secret: string,
  principal: Principal,
  query: Record<string, unknown>,
  requestId: string,
): Promise<Page<AuditItem>> {
  const limit = pageLimitOf(query.limit);
  const after = decodeCursor(query.cursor, AUDIT_POSITION);
  const entity = queryString(query.entity);
  const entityId = queryString(query.entityId);
  // An own property only: `constructor` or `__proto__` name no entity (Object.prototype's are not owners).
  if (query.entity !== undefined && (entity === undefined || !Object.hasOwn(AUDIT_OWNERS, entity))) {
    throw problems.badRequest('invalid_entity', `entity must be one of ${Object.keys(AUDIT_OWNERS).join(', ')}`);
  }
  if (query.entityId !== undefined && (entityId === undefined || !/^[A-Za-z0-9_-]{1,64}$/.test(entityId))) {
    throw problems.badRequest('invalid_entity_id', 'entityId is not a valid identifier');
  }
  const narrowing = auditNarrowingOf(query);
  const owners = entity ? [AUDIT_OWNERS[entity] as Upstream] : [...new Set(Object.values(AUDIT_OWNERS))];
  const params = new URLSearchParams();
  if (entity) params.set('entity', entity);
  if (entityId) params.set('entityId', entityId);
  auditNarrowingParams(narrowing, params);
  params.set('limit', String(limit + 1));
  if (after) params.set('cursor', encodeCursor(after));
  const path = `/internal/audit?${params.toString()}`;

  const lists = await Promise.all(
    owners.map(async (owner) => {
      const response = await signedGet(upstreams, owner, secret, path, principal, requestId);
      if (!response.ok) throw new ServiceUnavailableError(owner, `audit of ${owner} answered ${response.status}`);
      const body = (await response.json()) as { items?: InternalAuditItem[] };
      return Array.isArray(body.items) ? body.items : [];
    }),
  );
  const merged = lists.flat().sort(newestFirst);
  const page = merged.slice(0, limit);
  const last = page[page.length - 1];
  const names = await actorNames(upstreams, secret, principal, page, requestId);
  return {
    items: page.map(({ key: _key, ...item }) => {
      const actorName = names[item.actorAccountId];
      return actorName === undefined ? item : { ...item, actorName };
    }),
    nextCursor: merged.length > limit && last ? encodeCursor([new Date(last.at), last.key]) : null,
  };
}

/** How long a display name read from publisher-identity is kept (a name changes only at a sign-in). */
const NAME_TTL_MS = 60_000;
/** The most names kept per gateway; the oldest read goes first. */
const MAX_NAMES = 10_000;

/** The display names read lately, by account; one cache per set of upstreams (one per gateway). */
const nameCaches = new WeakMap<Upstreams, Map<string, { name: string | null; until: number }>>();

/**
 * The display names of the accounts that acted in a page (publisher-identity's accounts, one call for the
 * page's accounts not read in the last minute); an account never signed in has none. An administrator reads
 * every actor's name, any other account its own only. Names are a courtesy:
 * when they cannot be read the page is answered without them.
 */
async function actorNames(upstreams: Upstreams, secret: string, principal: Principal, page: readonly InternalAuditItem[], requestId: string): Promise<Record<string, string>> {
  let cache = nameCaches.get(upstreams);
  if (!cache) nameCaches.set(upstreams, (cache = new Map()));
  const now = Date.now();
  // An owner's records are changed by the owner and by administrators, whom an owner knows as "an
  // administrator" (decision 0057): an owner's audit names the owner alone.
  const named = principal.admin ? page.map((item) => item.actorAccountId) : page.map((item) => item.actorAccountId).filter((id) => id === principal.accountId);
  const ids = [...new Set(named.filter((id) => /^[0-9]{1,20}$/.test(id)))];
  const unknown = ids.filter((id) => (cache.get(id)?.until ?? 0) <= now);
  if (unknown.length > 0) {
    try {
      const response = await signedGet(upstreams, 'identity', secret, `/internal/accounts/names?ids=${unknown.join(',')}`, principal, requestId);
      if (response.ok) {
        const body = (await response.json()) as { names?: Record<string, unknown> };
        for (const id of unknown) {
          const name = body.names?.[id];
          cache.delete(id);
          cache.set(id, { name: typeof name === 'string' ? name : null, until: now + NAME_TTL_MS });
        }
        for (const oldest of cache.keys()) {
          if (cache.size <= MAX_NAMES) break;
          cache.delete(oldest);
        }
      }
    } catch {
      // Answered without the names not read.
    }
  }
  const names: Record<string, string> = {};
  for (const id of ids) {
    const name = cache.get(id)?.name;
    if (name) names[id] = name;
  }
  return names;
}
