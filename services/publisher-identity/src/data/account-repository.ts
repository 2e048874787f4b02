/**
 * Accounts (numeric messaging-platform ids) and the audit of their sign-ins and sign-outs. Audit entries
 * are written once, each under its own random `_id`, and never changed.
 */
import { randomUUID } from 'node:crypto';
import type { AuditNarrowing } from '@pilot/platform';
import {
  auditConditions,
  createDeclaredIndexes,
  entriesAfter,
  modelOf,
  storedSchema,
  type Connection,
  type FilterQuery,
  type HistoryPosition,
  type Model,
} from '@pilot/storage';

export interface AccountAuditEntry {
  _id: string;
  at: Date;
  actorAccountId: string;
  entity: 'account';
  entityId: string;
  ownerAccountId: string;
  action: 'signed_in' | 'signed_out';
  from: string | null;
  to: string | null;
  reason: string | null;
}

/** An account under its platform id, with the name of its last sign-in. */
interface AccountDocument {
  _id: string;
  displayName: string;
  lastSignInAt: Date;
  createdAt: Date;
}

const accountSchema = storedSchema<AccountDocument>({
  _id: { type: String, required: true },
  displayName: { type: String, required: true },
  lastSignInAt: { type: Date, required: true },
  createdAt: { type: Date, required: true },
});

const auditSchema = storedSchema<AccountAuditEntry>(
  {
    _id: { type: String, required: true },
    at: { type: Date, required: true },
    actorAccountId: { type: String, required: true },
    entity: { type: String, required: true },
    entityId: { type: String, required: true },
    ownerAccountId: { type: String, required: true },
    action: { type: String, required: true },
    from: String,
    to: String,
    reason: String,
  },
  // The audit's order (newest first, ties by `_id`) by owner, by account, by action (and owner) and over all: keyset pages.
  [[{ ownerAccountId: 1, at: -1, _id: -1 }], [{ entityId: 1, at: -1, _id: -1 }], [{ action: 1, at: -1, _id: -1 }], [{ ownerAccountId: 1, action: 1, at: -1, _id: -1 }], [{ at: -1, _id: -1 }]],
);

export class AccountRepository {
  private readonly accounts: Model<AccountDocument>;
  private readonly audit: Model<AccountAuditEntry>;

  constructor(connection: Connection) {
    this.accounts = modelOf(connection, 'accounts', accountSchema);
    this.audit = modelOf(connection, 'account_audit', auditSchema);
  }

  async ensureIndexes(): Promise<void> {
    await createDeclaredIndexes(this.audit);
  }

  /** Records the account and its current display name (a plain replace: the last sign-in wins). */
  async remember(accountId: string, displayName: string, at: Date): Promise<void> {
    await this.accounts.updateOne({ _id: accountId }, { $set: { displayName, lastSignInAt: at }, $setOnInsert: { createdAt: at } }, { upsert: true });
  }

  /** The display names of the accounts among `ids` that have signed in (by `_id`, one `$in` read). */
  async displayNames(ids: readonly string[]): Promise<Map<string, string>> {
    const found = await this.accounts.find({ _id: { $in: [...ids] } }, { displayName: 1 }).lean<Array<Pick<AccountDocument, '_id' | 'displayName'>>>();
    return new Map(found.map((account) => [account._id, account.displayName]));
  }

  /** When the account last signed in (by `_id`), null for an account never seen. */
  async lastSignInAt(accountId: string): Promise<Date | null> {
    return (await this.accounts.findById(accountId, { lastSignInAt: 1 }).lean<Pick<AccountDocument, 'lastSignInAt'>>())?.lastSignInAt ?? null;
  }

  async record(entry: Omit<AccountAuditEntry, '_id' | 'entity' | 'ownerAccountId' | 'from' | 'to' | 'reason'>): Promise<void> {
    const document: AccountAuditEntry = {
      _id: randomUUID(),
      entity: 'account',
      ownerAccountId: entry.entityId,
      from: null,
      to: null,
      reason: null,
      ...entry,
    };
    await this.audit.create(document);
  }

  /** Up to `count` entries in the audit's order (newest first, ties by `_id`), after `after`. */
  async history(filter: { ownerAccountId?: string; entityId?: string; narrowing: AuditNarrowing }, after: HistoryPosition | null, count: number): Promise<AccountAuditEntry[]> {
    const query: FilterQuery<AccountAuditEntry> = auditConditions(filter.narrowing);
    if (filter.ownerAccountId !== undefined) query.ownerAccountId = filter.ownerAccountId;
    if (filter.entityId !== undefined) query.entityId = filter.entityId;
    const paged = after ? { $and: [query, entriesAfter('account', after)] } : query;
    return this.audit.find(paged).sort({ at: -1, _id: -1 }).limit(count).lean<AccountAuditEntry[]>();
  }
}
