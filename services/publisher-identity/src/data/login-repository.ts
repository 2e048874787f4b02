/**
 * Login requests and the one-time facts of sign-in. Every "exactly once" here is an insert against a
 * unique `_id` (docs/decisions/0002): a code is used once (`login_code_uses`), a request issues one
 * session (`session_issues`), a webhook update is processed once (`webhook_updates`). None of them is
 * kept forever: retentionRules() says for how long (domain/retention.ts, docs/decisions/0011).
 */
import { ensureRetentionIndexes, isDuplicateKeyError, type RetentionRule } from '@pilot/mongo';
import type { Collection, Db, Document } from 'mongodb';
import { RETENTION } from '../domain/retention';
import type { LoginRequestRecord } from '../domain/sign-in';

export class LoginRepository {
  private readonly requests: Collection<Document>;
  private readonly codeUses: Collection<Document>;
  private readonly sessionIssues: Collection<Document>;
  private readonly updates: Collection<Document>;

  constructor(db: Db) {
    this.requests = db.collection('login_requests');
    this.codeUses = db.collection('login_code_uses');
    this.sessionIssues = db.collection('session_issues');
    this.updates = db.collection('webhook_updates');
  }

  async ensureIndexes(): Promise<void> {
    await this.requests.createIndex({ codeHash: 1 }, { unique: true });
    await ensureRetentionIndexes(this.retentionRules());
  }

  /** What the retention sweep deletes: each collection by its date field, past its window. */
  retentionRules(): RetentionRule[] {
    return [
      { collection: this.requests, dateFields: ['expiresAt'], keepMs: RETENTION.loginRequestsMs },
      { collection: this.codeUses, dateFields: ['at'], keepMs: RETENTION.loginCodeUsesMs },
      { collection: this.sessionIssues, dateFields: ['at'], keepMs: RETENTION.sessionIssuesMs },
      { collection: this.updates, dateFields: ['at'], keepMs: RETENTION.webhookUpdatesMs },
    ];
  }

  async create(request: LoginRequestRecord): Promise<void> {
    await this.requests.insertOne(request as unknown as Document);
  }

  async findById(requestId: string): Promise<LoginRequestRecord | null> {
    return (await this.requests.findOne({ _id: requestId } as never)) as LoginRequestRecord | null;
  }

  async findByCodeHash(codeHash: string): Promise<LoginRequestRecord | null> {
    return (await this.requests.findOne({ codeHash })) as LoginRequestRecord | null;
  }

  /** true for the one caller that uses this code. */
  claimCode(codeHash: string, at: Date, accountId: string): Promise<boolean> {
    return this.claim(this.codeUses, codeHash, { at, accountId });
  }

  async markConfirmed(requestId: string, accountId: string, displayName: string, at: Date): Promise<void> {
    await this.requests.updateOne({ _id: requestId } as never, { $set: { status: 'confirmed', accountId, displayName, confirmedAt: at } });
  }

  /** true for the one poll that turns this confirmed request into a session. */
  claimSessionIssue(requestId: string, at: Date): Promise<boolean> {
    return this.claim(this.sessionIssues, requestId, { at });
  }

  async sessionIssued(requestId: string): Promise<boolean> {
    return (await this.sessionIssues.countDocuments({ _id: requestId } as never, { limit: 1 })) > 0;
  }

  /** true the first time this update id is seen. */
  claimUpdate(updateId: number, at: Date): Promise<boolean> {
    return this.claim(this.updates, updateId, { at });
  }

  /** Forgets an update whose processing failed, so the platform's retry is processed. */
  async releaseUpdate(updateId: number): Promise<void> {
    await this.updates.deleteOne({ _id: updateId } as never);
  }

  private async claim(collection: Collection<Document>, id: string | number, document: Document): Promise<boolean> {
    try {
      await collection.insertOne({ ...document, _id: id as never });
      return true;
    } catch (error) {
      if (isDuplicateKeyError(error)) return false;
      throw error;
    }
  }
}
