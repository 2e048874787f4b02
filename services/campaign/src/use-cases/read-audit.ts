import { positiveIntOf, type AuditNarrowing, type Principal } from '@pilot/platform';
import { auditItemOf, type InternalAuditItem } from '@pilot/contracts';
import type { HistoryPosition } from '@pilot/storage';
import type { CampaignDeps } from './deps';

/**
 * Up to `limit` audit entries of campaigns in the audit's order after `after`, of one record, action and
 * period when asked: an owner's own records, or all for an administrator.
 */
export async function readAudit(
  deps: Pick<CampaignDeps, 'repository'>,
  caller: Principal,
  { entity, entityId, ...narrowing }: AuditNarrowing & { entity: string | undefined; entityId: string | undefined },
  after: HistoryPosition | null,
  limit: number,
): Promise<{ items: InternalAuditItem[] }> {
  if (entity !== undefined && entity !== 'campaign') return { items: [] };
  const campaignId = entityId === undefined ? null : positiveIntOf(entityId);
  if (entityId !== undefined && campaignId === null) return { items: [] };
  const entries = await deps.repository.audit({ ownerAccountId: caller.admin ? null : caller.accountId, campaignId, narrowing }, after, limit);
  return { items: entries.map((entry) => auditItemOf(entry.entity, entry)) };
}
