/**
 * Login requests and the one-time facts of sign-in. Every "exactly once" here is an insert against a
 * unique `_id`: a code is used once, by the first account that sends it to the bot
 * (`login_code_uses`), a request is answered once, confirmed or cancelled (`login_answers`), a request
 * issues one session (`session_issues`), a webhook update is processed once (`webhook_updates`). None of them is
 * kept forever: retentionRules() says for how long (domain/retention.ts).
 */
import { claimOnce, createDeclaredIndexes, modelOf, retentionRule, storedSchema, type Connection, type Model, type RetentionRule } from '@pilot/storage';
import { RETENTION } from '../domain/retention';
import type { LoginRequestRecord } from '../domain/sign-in';

/** The one use of a login code, under the code's hash. */
interface CodeUse {
  _id: string;
  at: Date;
  accountId: string;
}

/** The one answer to a request's question, under the request's id. */
interface LoginAnswerRecord {
  _id: string;
  at: Date;
  accountId: string;
  answer: 'confirmed' | 'cancelled';
}

/** The one session a confirmed request issued, under the request's id. */
interface SessionIssue {
  _id: string;
  at: Date;
}

/** A webhook update seen, under the platform's update id (a number). */
interface WebhookUpdate {
  _id: number;
  at: Date;
}

const requestSchema = storedSchema<LoginRequestRecord>(
  {
    _id: { type: String, required: true },
    codeHash: { type: String, required: true },
    bindingHash: { type: String, required: true },
    createdAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
    status: { type: String, required: true },
    browser: String,
    clientIp: String,
    accountId: String,
    displayName: String,
    confirmedAt: Date,
  },
  [[{ codeHash: 1 }, { unique: true }], [{ expiresAt: 1 }]],
);
const codeUseSchema = storedSchema<CodeUse>(
  { _id: { type: String, required: true }, at: { type: Date, required: true }, accountId: { type: String, required: true } },
  [[{ at: 1 }]],
);
const answerSchema = storedSchema<LoginAnswerRecord>(
  {
    _id: { type: String, required: true },
    at: { type: Date, required: true },
    accountId: { type: String, required: true },
    answer: { type: String, required: true },
  },
  [[{ at: 1 }]],
);
const sessionIssueSchema = storedSchema<SessionIssue>({ _id: { type: String, required: true }, at: { type: Date, required: true } }, [[{ at: 1 }]]);
const updateSchema = storedSchema<WebhookUpdate>({ _id: { type: Number, required: true }, at: { type: Date, required: true } }, [[{ at: 1 }]]);

export class LoginRepository {
  private readonly requests: Model<LoginRequestRecord>;
  private readonly codeUses: Model<CodeUse>;
  private readonly answers: Model<LoginAnswerRecord>;
  private readonly sessionIssues: Model<SessionIssue>;
  private readonly updates: Model<WebhookUpdate>;

  constructor(connection: Connection) {
    this.requests = modelOf(connection, 'login_requests', requestSchema);
    this.codeUses = modelOf(connection, 'login_code_uses', codeUseSchema);
    this.answers = modelOf(connection, 'login_answers', answerSchema);
    this.sessionIssues = modelOf(connection, 'session_issues', sessionIssueSchema);
    this.updates = modelOf(connection, 'webhook_updates', updateSchema);
  }

  async ensureIndexes(): Promise<void> {
    await createDeclaredIndexes(this.requests, this.codeUses, this.answers, this.sessionIssues, this.updates);
  }

  /** What the retention sweep deletes: each collection by its date field, past its window. */
  retentionRules(): RetentionRule[] {
    return [
      retentionRule(this.requests, ['expiresAt'], RETENTION.loginRequestsMs),
      retentionRule(this.codeUses, ['at'], RETENTION.loginCodeUsesMs),
      retentionRule(this.answers, ['at'], RETENTION.loginAnswersMs),
      retentionRule(this.sessionIssues, ['at'], RETENTION.sessionIssuesMs),
      retentionRule(this.updates, ['at'], RETENTION.webhookUpdatesMs),
    ];
  }

  async create(request: LoginRequestRecord): Promise<void> {
    await this.requests.create(request);
  }

  async findById(requestId: string): Promise<LoginRequestRecord | null> {
    return this.requests.findOne({ _id: requestId }).lean<LoginRequestRecord>();
  }

  async findByCodeHash(codeHash: string): Promise<LoginRequestRecord | null> {
    return this.requests.findOne({ codeHash }).lean<LoginRequestRecord>();
  }

  /** true for the one caller that uses this code. */
  claimCode(codeHash: string, at: Date, accountId: string): Promise<boolean> {
    return claimOnce(this.codeUses, codeHash, { at, accountId });
  }

  /** The account that used this code, or null when nobody has. */
  async codeUser(codeHash: string): Promise<string | null> {
    const use = await this.codeUses.findOne({ _id: codeHash }).lean<CodeUse>();
    return use?.accountId ?? null;
  }

  /** true for the one press of Confirm or Cancel that answers this request. */
  claimAnswer(requestId: string, answer: 'confirmed' | 'cancelled', accountId: string, at: Date): Promise<boolean> {
    return claimOnce(this.answers, requestId, { at, accountId, answer });
  }

  /** The answer given to a request, or null. */
  async answerOf(requestId: string): Promise<'confirmed' | 'cancelled' | null> {
    const answer = await this.answers.findOne({ _id: requestId }).lean<LoginAnswerRecord>();
    return answer?.answer ?? null;
  }

  async markCancelled(requestId: string): Promise<void> {
    await this.requests.updateOne({ _id: requestId }, { $set: { status: 'cancelled' } });
  }

  async markConfirmed(requestId: string, accountId: string, displayName: string, at: Date): Promise<void> {
    await this.requests.updateOne({ _id: requestId }, { $set: { status: 'confirmed', accountId, displayName, confirmedAt: at } });
  }

  /** true for the one poll that turns this confirmed request into a session. */
  claimSessionIssue(requestId: string, at: Date): Promise<boolean> {
    return claimOnce(this.sessionIssues, requestId, { at });
  }

  async sessionIssued(requestId: string): Promise<boolean> {
    return (await this.sessionIssues.countDocuments({ _id: requestId }, { limit: 1 })) > 0;
  }

  /** true the first time this update id is seen. */
  claimUpdate(updateId: number, at: Date): Promise<boolean> {
    return claimOnce(this.updates, updateId, { at });
  }

  /** Forgets an update whose processing failed, so the platform's retry is processed. */
  async releaseUpdate(updateId: number): Promise<void> {
    await this.updates.deleteOne({ _id: updateId });
  }
}
