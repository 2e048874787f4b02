/**
 * Workspace sessions, stored under the SHA-256 of the session id (the cookie value never reaches the
 * database). An expired or ended session is deleted by the retention sweep a margin later.
 */
import { createDeclaredIndexes, modelOf, retentionRule, storedSchema, type Connection, type Model, type RetentionRule } from '@pilot/storage';
import { RETENTION } from '../domain/retention';

export interface SessionRecord {
  _id: string;
  accountId: string;
  displayName: string;
  createdAt: Date;
  expiresAt: Date;
  endedAt: Date | null;
}

const sessionSchema = storedSchema<SessionRecord>(
  {
    _id: { type: String, required: true },
    accountId: { type: String, required: true },
    displayName: { type: String, required: true },
    createdAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
    endedAt: Date,
  },
  [[{ accountId: 1 }], [{ expiresAt: 1 }], [{ endedAt: 1 }]],
);

export class SessionRepository {
  private readonly sessions: Model<SessionRecord>;

  constructor(connection: Connection) {
    this.sessions = modelOf(connection, 'sessions', sessionSchema);
  }

  async ensureIndexes(): Promise<void> {
    await createDeclaredIndexes(this.sessions);
  }

  /** Sessions go `RETENTION.sessionsMs` after they expire or end, whichever is first. */
  retentionRules(): RetentionRule[] {
    return [retentionRule(this.sessions, ['expiresAt', 'endedAt'], RETENTION.sessionsMs)];
  }

  async create(session: SessionRecord): Promise<void> {
    await this.sessions.create(session);
  }

  async find(sessionHash: string): Promise<SessionRecord | null> {
    return this.sessions.findOne({ _id: sessionHash }).lean<SessionRecord>();
  }

  async end(sessionHash: string, at: Date): Promise<void> {
    await this.sessions.updateOne({ _id: sessionHash }, { $set: { endedAt: at } });
  }
}
