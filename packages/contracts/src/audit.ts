/**
 * The `GET /internal/audit?entity=&entityId=&limit=&cursor=` contract: each service answers
 * `{items: InternalAuditItem[]}`, at most `limit` of its own entries newest first, only those after the
 * position the cursor names; the gateway merges the services' pages into `GET /api/workspace/audit`.
 *
 * Every entry of every service has a place in one order: newest `at` first, then the highest `key`
 * (`<entity>/<the entry's _id>`, unique across services). The audit's cursor is the `(at, key)` of the last
 * entry of a page; the next page asks each service only for entries after it in that order.
 */
export interface AuditItem {
  at: string;
  actorAccountId: string;
  entity: string;
  entityId: string;
  action: string;
  from: string | null;
  to: string | null;
  reason: string | null;
  /** the acting account's display name, where the gateway could read one (GET /api/workspace/audit) */
  actorName?: string;
}

/** An entry as a service answers the gateway: with its place in the order. */
export type InternalAuditItem = AuditItem & { key: string };

/** What a stored audit entry (for example a VersionedStore history entry) holds. */
export interface AuditFacts {
  _id: string;
  at: Date | string;
  actorAccountId: string;
  entityId: string | number;
  action: string;
  from: string | null;
  to: string | null;
  reason?: string | null;
}

/** The shape of the audit's cursors (`@pilot/platform` decodeCursor): the `at` and `key` of an entry. */
export const AUDIT_POSITION = ['time', 'key'] as const;

export function auditKeyOf(entity: string, entryId: string): string {
  return `${entity}/${entryId}`;
}

export function auditItemOf(entity: string, facts: AuditFacts): InternalAuditItem {
  return {
    at: new Date(facts.at).toISOString(),
    actorAccountId: facts.actorAccountId,
    entity,
    entityId: String(facts.entityId),
    action: facts.action,
    from: facts.from,
    to: facts.to,
    reason: facts.reason ?? null,
    key: auditKeyOf(entity, facts._id),
  };
}

/** The audit's order: newest first, then the highest key. */
export function newestFirst(a: InternalAuditItem, b: InternalAuditItem): number {
  if (a.at !== b.at) return a.at < b.at ? 1 : -1;
  return a.key < b.key ? 1 : a.key > b.key ? -1 : 0;
}

/**
 * Among the entries of `entity` at the same instant as the position whose key is `key`, which come after
 * it: those whose `_id` is below a bound, all of them, or none (their keys all sort before or after it).
 */
export function sameInstantAfter(entity: string, key: string): { idBelow: string } | 'all' | 'none' {
  const prefix = auditKeyOf(entity, '');
  if (key.startsWith(prefix)) return { idBelow: key.slice(prefix.length) };
  return prefix < key ? 'all' : 'none';
}
