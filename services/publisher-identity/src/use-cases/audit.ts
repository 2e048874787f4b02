/**
 * The audit of this service's records for GET /internal/audit: publisher transitions and key rotations
 * (the VersionedStore history) and account sign-ins and sign-outs. Newest first; an administrator sees
 * every entry, an account the entries of its own records.
 */
import { AUDIT_LIMIT, auditItemOf, newestFirst, type AuditItem } from '@pilot/contracts';
import type { Principal } from '@pilot/internal-auth';
import type { AccountRepository } from '../data/account-repository';
import type { PublisherRepository } from '../data/publisher-repository';

export class Audit {
  constructor(
    private readonly publishers: PublisherRepository,
    private readonly accounts: AccountRepository,
  ) {}

  async list(caller: Principal, entity?: string, entityId?: string): Promise<AuditItem[]> {
    const ownerAccountId = caller.admin ? undefined : caller.accountId;
    const lists: AuditItem[][] = [];
    if (entity === undefined || entity === 'publisher') {
      const id = entityId === undefined ? undefined : /^[1-9][0-9]{0,15}$/.test(entityId) ? Number(entityId) : null;
      if (id !== null) {
        const entries = await this.publishers.history({ ownerAccountId, entityId: id }, AUDIT_LIMIT);
        lists.push(entries.map((entry) => auditItemOf('publisher', entry)));
      }
    }
    if (entity === undefined || entity === 'account') {
      if (entityId === undefined || /^[0-9]{1,20}$/.test(entityId)) {
        const entries = await this.accounts.history({ ownerAccountId, entityId }, AUDIT_LIMIT);
        lists.push(entries.map((entry) => auditItemOf('account', entry)));
      }
    }
    return lists.flat().sort(newestFirst).slice(0, AUDIT_LIMIT);
  }
}
