/**
 * Workspace sign-in: a login request bound to one browser; the person sends `/start <code>` to the bot,
 * which asks them whether that browser (named with its address and time) is theirs; their Confirm turns
 * the request into a server-side session on the binding browser's next poll, their Cancel ends it.
 */
import { addressLimitKey, endedMarkerTtlMs, problems, type Clock, type EndedSessionMarkers, type Logger, type RedisLimiter } from '@pilot/platform';
import { newBindingValue, newLoginCode, newRequestId, newSessionId, constantTimeEqual, sha256Hex } from '../domain/secrets';
import {
  LOGIN_REQUEST_TTL_MS,
  answerReply,
  botUrlOf,
  confirmationQuestion,
  describeBrowser,
  parseUpdate,
  startReply,
  visibleStatus,
  type AnswerOutcome,
  type AnswerPress,
  type BotReply,
  type LoginStatus,
  type StartCommand,
} from '../domain/sign-in';
import type { AccountRepository } from '../data/account-repository';
import type { LoginRepository } from '../data/login-repository';
import type { SessionRepository } from '../data/session-repository';

export interface Account {
  accountId: string;
  displayName: string;
  admin: boolean;
}

/** A live session: its account, and when it ends (gateways keep it cached no longer). */
export interface ResolvedSession {
  account: Account;
  expiresAt: Date;
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
    /** Where a logout tells every gateway replica the session has ended (decision 0042). */
    private readonly endedSessions: EndedSessionMarkers,
  ) {}

  isAdmin(accountId: string): boolean {
    return this.settings.adminAccountIds.has(accountId);
  }

  /**
   * A sign-in request for the browser at `clientIp`; 429 over the address's limit (an IPv6 address's
   * /64), before anything is stored. The address and the browser's name are what the bot shows the person asked to confirm.
   */
  async createLogin(clientIp: string, userAgent?: string): Promise<CreatedLogin> {
    const decision = await this.loginLimit.consume(addressLimitKey(clientIp));
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
      browser: describeBrowser(userAgent),
      clientIp,
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
  async handleUpdate(update: unknown): Promise<BotReply | null> {
    const { updateId, input } = parseUpdate(update);
    if (updateId === null || input === null) return null;
    const now = this.clock.now();
    if (!(await this.logins.claimUpdate(updateId, now))) return null;
    try {
      return input.kind === 'start' ? await this.ask(input, now) : answerReply(input, await this.answer(input, now));
    } catch (error) {
      await this.logins.releaseUpdate(updateId).catch(() => undefined);
      throw error;
    }
  }

  /**
   * `/start <code>`: the first account to send a live code is the one asked (the same account sending it
   * again is asked again); anyone after it hears the link was used.
   */
  private async ask(start: StartCommand, now: Date): Promise<BotReply> {
    if (!start.code) return startReply(start.chatId, 'no_code');
    const codeHash = sha256Hex(start.code);
    const request = await this.logins.findByCodeHash(codeHash);
    if (!request) return startReply(start.chatId, 'unknown_code');
    if (request.status !== 'pending') return startReply(start.chatId, 'already_used');
    if (visibleStatus(request, now) === 'expired') return startReply(start.chatId, 'expired');
    if (!(await this.logins.claimCode(codeHash, now, start.accountId)) && (await this.logins.codeUser(codeHash)) !== start.accountId) {
      return startReply(start.chatId, 'already_used');
    }
    return confirmationQuestion(start.chatId, request);
  }

  /**
   * A press of Confirm or Cancel: only the account that was asked answers, and only once. A request still
   * pending under an answer already given (a process that died between the two writes) is finished with
   * that answer, whichever button is pressed now.
   */
  private async answer(press: AnswerPress, now: Date): Promise<AnswerOutcome> {
    const request = await this.logins.findById(press.requestId);
    if (!request || (await this.logins.codeUser(request.codeHash)) !== press.accountId) return 'not_yours';
    if (request.status !== 'pending') return 'already_answered';
    if (visibleStatus(request, now) === 'expired') return 'expired';
    let outcome: 'confirmed' | 'cancelled' = press.answer === 'confirm' ? 'confirmed' : 'cancelled';
    if (!(await this.logins.claimAnswer(request._id, outcome, press.accountId, now))) {
      const given = await this.logins.answerOf(request._id);
      if (!given) return 'already_answered';
      outcome = given;
    }
    if (outcome === 'confirmed') await this.logins.markConfirmed(request._id, press.accountId, press.displayName, now);
    else await this.logins.markCancelled(request._id);
    this.logger.info({ accountId: press.accountId, requestId: request._id, outcome }, 'login request answered');
    return outcome;
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

  /**
   * The account of a live session, with administrator rights decided now from ADMIN_ACCOUNT_IDS (a gateway
   * keeps them up to its SESSION_CACHE_MS), and when the session expires.
   */
  async resolve(sessionId: string): Promise<ResolvedSession | null> {
    const session = await this.sessions.find(sha256Hex(sessionId));
    if (!session || session.endedAt || session.expiresAt.getTime() <= this.clock.now().getTime()) return null;
    return { account: this.accountOf(session.accountId, session.displayName), expiresAt: session.expiresAt };
  }

  /** When the account last signed in (the notification service asks before messaging someone who blocked the bot). */
  async lastSignInAt(accountId: string): Promise<Date | null> {
    return this.accounts.lastSignInAt(accountId);
  }

  /**
   * Ends the session on the server, then marks it ended in Redis before the logout is answered, so that
   * every gateway holding it cached refuses it at once. Without Redis the marker is a 503: the session has
   * ended in the database, and the logout's retry, finding it ended, writes the marker and nothing else.
   */
  async logout(sessionId: string): Promise<void> {
    const hash = sha256Hex(sessionId);
    const session = await this.sessions.find(hash);
    if (!session) return;
    const now = this.clock.now();
    if (!session.endedAt) {
      await this.sessions.end(hash, now);
      await this.accounts.record({ at: now, actorAccountId: session.accountId, entityId: session.accountId, action: 'signed_out' });
    }
    await this.endedSessions.markEnded(sessionId, endedMarkerTtlMs(session.expiresAt, now));
  }

  private accountOf(accountId: string, displayName: string): Account {
    return { accountId, displayName, admin: this.isAdmin(accountId) };
  }
}
