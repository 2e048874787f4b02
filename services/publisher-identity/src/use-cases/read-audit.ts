import { auditItemOf, newestFirst, type InternalAuditItem } from '@pilot/contracts';
import { positiveIntOf, type AuditNarrowing, type Principal } from '@pilot/platform';
import type { HistoryPosition } from '@pilot/storage';
import type { IdentityDeps } from './deps';

/**
 * The audit of this service's records for GET /internal/audit: publisher transitions and key rotations
 * (the VersionedStore history) and account sign-ins and sign-outs. Newest first; an administrator sees
 * every entry, an account the entries of its own records. Up to `limit` entries of both kinds in the
 * audit's order, after `after`; the two reads run side by side.
 */
export async function readAudit(
  deps: Pick<IdentityDeps, 'publishers' | 'accounts'>,
  caller: Principal,
  { entity, entityId, ...narrowing }: AuditNarrowing & { entity: string | undefined; entityId: string | undefined },
  after: HistoryPosition | null,
  limit: number,
): Promise<InternalAuditItem[]> {
  const ownerAccountId = caller.admin ? undefined : caller.accountId;
  const reads: Array<Promise<InternalAuditItem[]>> = [];
  if (entity === undefined || entity === 'publisher') {
    const id = entityId === undefined ? undefined : positiveIntOf(entityId);
    if (id !== null) {
      reads.push(deps.publishers.history({ ownerAccountId, entityId: id, narrowing }, after, limit).then((entries) => entries.map((entry) => auditItemOf('publisher', entry))));
    }
  }
  if (entity === undefined || entity === 'account') {
    if (entityId === undefined || /^[0-9]{1,20}$/.test(entityId)) {
      reads.push(deps.accounts.history({ ownerAccountId, entityId, narrowing }, after, limit).then((entries) => entries.map((entry) => auditItemOf('account', entry))));
    }
  }
  return (await Promise.all(reads)).flat().sort(newestFirst).slice(0, limit);
}
