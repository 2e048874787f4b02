/**
 * Workspace sessions, stored under the SHA-256 of the session id (the cookie value never reaches the
 * database). An expired or ended session is deleted by the retention sweep a margin later (decision 0011).
 */
import { ensureRetentionIndexes, type RetentionRule } from '@pilot/mongo';
import type { Collection, Db, Document } from 'mongodb';
import { RETENTION } from '../domain/retention';

export interface SessionRecord {
  _id: string;
  accountId: string;
  displayName: string;
  createdAt: Date;
  expiresAt: Date;
  endedAt: Date | null;
}

export class SessionRepository {
  private readonly sessions: Collection<Document>;

  constructor(db: Db) {
    this.sessions = db.collection('sessions');
  }

  async ensureIndexes(): Promise<void> {
    await this.sessions.createIndex({ accountId: 1 });
    await ensureRetentionIndexes(this.retentionRules());
  }

  /** Sessions go `RETENTION.sessionsMs` after they expire or end, whichever is first. */
  retentionRules(): RetentionRule[] {
    return [{ collection: this.sessions, dateFields: ['expiresAt', 'endedAt'], keepMs: RETENTION.sessionsMs }];
  }

  async create(session: SessionRecord): Promise<void> {
    await this.sessions.insertOne(session as unknown as Document);
  }

  async find(sessionHash: string): Promise<SessionRecord | null> {
    return (await this.sessions.findOne({ _id: sessionHash } as never)) as SessionRecord | null;
  }

  async end(sessionHash: string, at: Date): Promise<void> {
    await this.sessions.updateOne({ _id: sessionHash } as never, { $set: { endedAt: at } });
  }
}
