import { auditItemOf, type InternalAuditItem } from '@pilot/contracts';
import type { HistoryPosition } from '@pilot/storage';
import type { PlacementDeps } from './deps';
import type { AuditNarrowing, Principal } from '@pilot/platform';

export type PlacementAuditItem = InternalAuditItem & { placementId: string };

/**
 * Up to `limit` entries in the audit's order after `after`. Placements are administrator-owned: an
 * administrator sees every entry, anyone else none.
 */
export async function readAudit(deps: Pick<PlacementDeps, 'placements'>, caller: Principal, { entity, entityId, ...narrowing }: AuditNarrowing & { entity: string | undefined; entityId: string | undefined }, after: HistoryPosition | null, limit: number): Promise<PlacementAuditItem[]> {
  if (!caller.admin) return [];
  if (entity !== undefined && entity !== 'placement') return [];
  const entries = await deps.placements.history(entityId, narrowing, after, limit);
  return entries.map((entry) => ({ ...auditItemOf(entry.entity, entry), placementId: entry.state.placement.placementId }));
}
