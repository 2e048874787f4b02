import { constantTimeEqual, newSessionId, sha256Hex } from '../domain/secrets';
import { visibleStatus, type LoginStatus } from '../domain/sign-in';
import { accountOf, type Account } from './accounts';
import type { IdentityDeps } from './deps';

export type PollResult =
  | { found: false }
  | { found: true; status: LoginStatus; session?: { id: string; account: Account; expiresAt: Date } };

/** The binding browser's poll; the first one after confirmation creates the session. */
export async function pollLogin(deps: IdentityDeps, requestId: string, binding: string | null): Promise<PollResult> {
  const request = await deps.logins.findById(requestId);
  if (!request || !binding || !constantTimeEqual(sha256Hex(binding), request.bindingHash)) return { found: false };
  const now = deps.clock.now();
  const status = visibleStatus(request, now);
  if (status !== 'confirmed' || !request.accountId) return { found: true, status };
  if (!(await deps.logins.claimSessionIssue(requestId, now))) return { found: true, status };
  const accountId = request.accountId;
  const displayName = request.displayName ?? accountId;
  const sessionId = newSessionId();
  const expiresAt = new Date(now.getTime() + deps.sessionTtlMs);
  await deps.accounts.remember(accountId, displayName, now);
  await deps.sessions.create({ _id: sha256Hex(sessionId), accountId, displayName, createdAt: now, expiresAt, endedAt: null });
  await deps.accounts.record({ at: now, actorAccountId: accountId, entityId: accountId, action: 'signed_in' });
  return { found: true, status, session: { id: sessionId, account: accountOf(deps, accountId, displayName), expiresAt } };
}
