import { sha256Hex } from '../domain/secrets';
import { accountOf, type Account } from './accounts';
import type { IdentityDeps } from './deps';

/** A live session: its account, and when it ends (gateways keep it cached no longer). */
export interface ResolvedSession {
  account: Account;
  expiresAt: Date;
}

/**
 * The account of a live session, with administrator rights decided now from ADMIN_ACCOUNT_IDS (a gateway
 * keeps them up to its SESSION_CACHE_MS), and when the session expires.
 */
export async function resolveSession(deps: Pick<IdentityDeps, 'sessions' | 'clock' | 'adminAccountIds'>, sessionId: string): Promise<ResolvedSession | null> {
  const session = await deps.sessions.find(sha256Hex(sessionId));
  if (!session || session.endedAt || session.expiresAt.getTime() <= deps.clock.now().getTime()) return null;
  return { account: accountOf(deps, session.accountId, session.displayName), expiresAt: session.expiresAt };
}
