/** What publisher-identity's use cases are given by start.ts: the stores, the key read model, the limits, the sign-in settings and the clock. */
import type { Clock, EndedSessionMarkers, Logger, RedisLimiter } from '@pilot/platform';
import type { AccountRepository } from '../data/account-repository';
import type { PublisherKeyWriter } from '../data/key-read-model';
import type { LoginRepository } from '../data/login-repository';
import type { PublisherRepository } from '../data/publisher-repository';
import type { SessionRepository } from '../data/session-repository';

export interface IdentityDeps {
  publishers: PublisherRepository;
  readModel: PublisherKeyWriter;
  logins: LoginRepository;
  sessions: SessionRepository;
  accounts: AccountRepository;
  /** PUBLIC_BASE_URL, shown with every platform as the base of its network calls. */
  apiBaseUrl: string;
  /** Keys and test keys generated per account (KEY_ROTATION_LIMIT_*), shared by every replica. */
  keyGenerationLimit: RedisLimiter;
  /** Sign-in attempts per client address (LOGIN_LIMIT_*), shared by every replica. */
  loginLimit: RedisLimiter;
  /** Where a logout tells every gateway replica the session has ended. */
  endedSessions: EndedSessionMarkers;
  /** TELEGRAM_BOT_USERNAME: the bot a sign-in code is sent to. */
  botUsername: string;
  /** ADMIN_ACCOUNT_IDS. */
  adminAccountIds: Set<string>;
  /** SESSION_TTL_HOURS, in milliseconds. */
  sessionTtlMs: number;
  clock: Clock;
  logger: Logger;
}
