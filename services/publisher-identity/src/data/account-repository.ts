/**
 * Accounts (numeric messaging-platform ids) and the audit of their sign-ins and sign-outs. Audit entries
 * are written once, each under its own random `_id`, and never changed.
 */
import { randomUUID } from 'node:crypto';
import type { Collection, Db, Document, Filter } from 'mongodb';

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

export class AccountRepository {
  private readonly accounts: Collection<Document>;
  private readonly audit: Collection<Document>;

  constructor(db: Db) {
    this.accounts = db.collection('accounts');
    this.audit = db.collection('account_audit');
  }

  async ensureIndexes(): Promise<void> {
    await this.audit.createIndex({ ownerAccountId: 1, at: -1 });
    await this.audit.createIndex({ at: -1 });
  }

  /** Records the account and its current display name (a plain replace: the last sign-in wins). */
  async remember(accountId: string, displayName: string, at: Date): Promise<void> {
    await this.accounts.updateOne(
      { _id: accountId } as never,
      { $set: { displayName, lastSignInAt: at }, $setOnInsert: { createdAt: at } },
      { upsert: true },
    );
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
    await this.audit.insertOne(document as unknown as Document);
  }

  async history(filter: { ownerAccountId?: string; entityId?: string }, limit: number): Promise<AccountAuditEntry[]> {
    const query: Filter<Document> = {};
    if (filter.ownerAccountId !== undefined) query.ownerAccountId = filter.ownerAccountId;
    if (filter.entityId !== undefined) query.entityId = filter.entityId;
    return (await this.audit.find(query).sort({ at: -1 }).limit(limit).toArray()) as unknown as AccountAuditEntry[];
  }
}
