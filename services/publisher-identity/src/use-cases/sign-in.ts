/**
 * Workspace sign-in: a login request bound to one browser, confirmed by the person through the bot
 * (`/start <code>`), turned into a server-side session on the binding browser's next poll.
 */
import type { Clock } from '@pilot/config';
import type { Logger } from '@pilot/logging';
import { problems } from '@pilot/problems';
import type { RedisLimiter } from '@pilot/redis';
import { newBindingValue, newLoginCode, newRequestId, newSessionId, constantTimeEqual, sha256Hex } from '../domain/secrets';
import { LOGIN_REQUEST_TTL_MS, botUrlOf, parseUpdate, replyFor, visibleStatus, type ConfirmOutcome, type LoginStatus } from '../domain/sign-in';
import type { AccountRepository } from '../data/account-repository';
import type { LoginRepository } from '../data/login-repository';
import type { SessionRepository } from '../data/session-repository';

export interface Account {
  accountId: string;
  displayName: string;
  admin: boolean;
}

export interface SignInSettings {
  botUsername: string;
  adminAccountIds: Set<string>;
  sessionTtlMs: number;
}

export interface CreatedLogin {
  requestId: string;
  code: string;
  botUrl: string;
  expiresAt: string;
  /** Goes into the HttpOnly binding cookie; only its hash is stored. */
  binding: string;
}

export type PollResult =
  | { found: false }
  | { found: true; status: LoginStatus; session?: { id: string; account: Account; expiresAt: Date } };

export class SignIn {
  constructor(
    private readonly logins: LoginRepository,
    private readonly sessions: SessionRepository,
    private readonly accounts: AccountRepository,
    private readonly clock: Clock,
    private readonly settings: SignInSettings,
    private readonly logger: Logger,
    /** Sign-in attempts per client address (LOGIN_LIMIT_*), shared by every replica. */
    private readonly loginLimit: RedisLimiter,
  ) {}

  isAdmin(accountId: string): boolean {
    return this.settings.adminAccountIds.has(accountId);
  }

  /** A sign-in request for `clientIp`; 429 over the address's limit, before anything is stored. */
  async createLogin(clientIp: string): Promise<CreatedLogin> {
    const decision = await this.loginLimit.consume(clientIp);
    if (!decision.allowed) throw problems.tooManyRequests(decision.retryAfterSeconds, 'Too many sign-in attempts from this address; wait a moment');
    const now = this.clock.now();
    const requestId = newRequestId();
    const code = newLoginCode();
    const binding = newBindingValue();
    const expiresAt = new Date(now.getTime() + LOGIN_REQUEST_TTL_MS);
    await this.logins.create({
      _id: requestId,
      codeHash: sha256Hex(code),
      bindingHash: sha256Hex(binding),
      createdAt: now,
      expiresAt,
      status: 'pending',
      accountId: null,
      displayName: null,
      confirmedAt: null,
    });
    return { requestId, code, botUrl: botUrlOf(this.settings.botUsername, code), expiresAt: expiresAt.toISOString(), binding };
  }

  /**
   * A webhook update. Returns the reply to send (or null); a repeated update id is processed once.
   * If processing fails, the update id is released so the platform's retry is processed.
   */
  async handleUpdate(update: unknown): Promise<ReturnType<typeof replyFor> | null> {
    const { updateId, message } = parseUpdate(update);
    if (updateId === null || message === null) return null;
    const now = this.clock.now();
    if (!(await this.logins.claimUpdate(updateId, now))) return null;
    try {
      const outcome = message.code ? await this.confirm(message.code, message.accountId, message.displayName, now) : 'no_code';
      return replyFor(message.chatId, outcome);
    } catch (error) {
      await this.logins.releaseUpdate(updateId).catch(() => undefined);
      throw error;
    }
  }

  private async confirm(code: string, accountId: string, displayName: string, now: Date): Promise<ConfirmOutcome> {
    const codeHash = sha256Hex(code);
    const request = await this.logins.findByCodeHash(codeHash);
    if (!request) return 'unknown_code';
    if (request.status !== 'pending') return 'already_used';
    if (visibleStatus(request, now) === 'expired') return 'expired';
    if (!(await this.logins.claimCode(codeHash, now, accountId))) return 'already_used';
    await this.logins.markConfirmed(request._id, accountId, displayName, now);
    this.logger.info({ accountId, requestId: request._id }, 'login request confirmed');
    return 'confirmed';
  }

  /** The binding browser's poll; the first one after confirmation creates the session. */
  async poll(requestId: string, binding: string | null): Promise<PollResult> {
    const request = await this.logins.findById(requestId);
    if (!request || !binding || !constantTimeEqual(sha256Hex(binding), request.bindingHash)) return { found: false };
    const now = this.clock.now();
    const status = visibleStatus(request, now);
    if (status !== 'confirmed' || !request.accountId) return { found: true, status };
    if (!(await this.logins.claimSessionIssue(requestId, now))) return { found: true, status };
    const accountId = request.accountId;
    const displayName = request.displayName ?? accountId;
    const sessionId = newSessionId();
    const expiresAt = new Date(now.getTime() + this.settings.sessionTtlMs);
    await this.accounts.remember(accountId, displayName, now);
    await this.sessions.create({ _id: sha256Hex(sessionId), accountId, displayName, createdAt: now, expiresAt, endedAt: null });
    await this.accounts.record({ at: now, actorAccountId: accountId, entityId: accountId, action: 'signed_in' });
    return { found: true, status, session: { id: sessionId, account: this.accountOf(accountId, displayName), expiresAt } };
  }

  /** The account of a live session, with administrator rights decided now from ADMIN_ACCOUNT_IDS. */
  async resolve(sessionId: string): Promise<Account | null> {
    const session = await this.sessions.find(sha256Hex(sessionId));
    if (!session || session.endedAt || session.expiresAt.getTime() <= this.clock.now().getTime()) return null;
    return this.accountOf(session.accountId, session.displayName);
  }

  /** When the account last signed in (the notification service asks before messaging someone who blocked the bot). */
  async lastSignInAt(accountId: string): Promise<Date | null> {
    return this.accounts.lastSignInAt(accountId);
  }

  /** Ends the session on the server; a second logout changes nothing. */
  async logout(sessionId: string): Promise<void> {
    const hash = sha256Hex(sessionId);
    const session = await this.sessions.find(hash);
    if (!session || session.endedAt) return;
    const now = this.clock.now();
    await this.sessions.end(hash, now);
    await this.accounts.record({ at: now, actorAccountId: session.accountId, entityId: session.accountId, action: 'signed_out' });
  }

  private accountOf(accountId: string, displayName: string): Account {
    return { accountId, displayName, admin: this.isAdmin(accountId) };
  }
}
