/**
 * The `GET /internal/audit` contract: each service answers `{items: AuditItem[]}` newest first for its own
 * records, and the gateway merges the lists for `GET /api/workspace/audit`.
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
}

/** What a stored audit entry (for example a VersionedStore history entry) holds. */
export interface AuditFacts {
  at: Date | string;
  actorAccountId: string;
  entityId: string | number;
  action: string;
  from: string | null;
  to: string | null;
  reason?: string | null;
}

/** The most entries one audit answer carries. */
export const AUDIT_LIMIT = 500;

export function auditItemOf(entity: string, facts: AuditFacts): AuditItem {
  return {
    at: new Date(facts.at).toISOString(),
    actorAccountId: facts.actorAccountId,
    entity,
    entityId: String(facts.entityId),
    action: facts.action,
    from: facts.from,
    to: facts.to,
    reason: facts.reason ?? null,
  };
}

/** Newest first, by the ISO timestamps. */
export function newestFirst(a: AuditItem, b: AuditItem): number {
  return a.at < b.at ? 1 : a.at > b.at ? -1 : 0;
}
