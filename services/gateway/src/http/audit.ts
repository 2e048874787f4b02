/**
 * GET /api/workspace/audit: each service keeps the audit of its own records; the gateway asks the owners
 * (all three, or the one owning `entity`) with the caller's signed identity for one entry more than the
 * page, each only for entries after the cursor's position (`@pilot/contracts` audit), merges them in the
 * audit's order and cuts the page. Its cursor is the position of its last entry, so every page costs the
 * same however deep it is.
 */
import { AUDIT_POSITION, newestFirst, type AuditItem, type InternalAuditItem } from '@pilot/contracts';
import { decodeCursor, encodeCursor, pageLimitOf, queryString, type Page, signedHeaders, type Principal, problems, ServiceUnavailableError } from '@pilot/platform';
import { AUDIT_OWNERS, type Upstream } from '../domain/routing';
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
  const owners = entity ? [AUDIT_OWNERS[entity] as Upstream] : [...new Set(Object.values(AUDIT_OWNERS))];
  const params = new URLSearchParams();
  if (entity) params.set('entity', entity);
  if (entityId) params.set('entityId', entityId);
  params.set('limit', String(limit + 1));
  if (after) params.set('cursor', encodeCursor(after));
  const path = `/internal/audit?${params.toString()}`;

  const lists = await Promise.all(
    owners.map(async (owner) => {
      const pool = upstreams.pool(owner);
      const base = pool.pick();
      let response: Response;
      try {
        response = await fetch(`${base}${path}`, {
          headers: signedHeaders(secret, {
            method: 'GET',
            url: path,
            accountId: principal.accountId,
            admin: principal.admin,
            displayName: principal.displayName,
            requestId,
          }),
          signal: AbortSignal.timeout(5000),
        });
      } catch {
        throw new ServiceUnavailableError(owner);
      }
      if (!response.ok) throw new ServiceUnavailableError(owner, `audit of ${owner} answered ${response.status}`);
      const body = (await response.json()) as { items?: InternalAuditItem[] };
      return Array.isArray(body.items) ? body.items : [];
    }),
  );
  const merged = lists.flat().sort(newestFirst);
  const page = merged.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(({ key: _key, ...item }) => item),
    nextCursor: merged.length > limit && last ? encodeCursor([new Date(last.at), last.key]) : null,
  };
}
