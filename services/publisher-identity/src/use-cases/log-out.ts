import { endedMarkerTtlMs } from '@pilot/platform';
import { sha256Hex } from '../domain/secrets';
import type { IdentityDeps } from './deps';

/**
 * Ends the session on the server, then marks it ended in Redis before the logout is answered, so that
 * every gateway holding it cached refuses it at once. Without Redis the marker is a 503: the session has
 * ended in the database, and the logout's retry, finding it ended, writes the marker and nothing else.
 */
export async function logOut(deps: Pick<IdentityDeps, 'sessions' | 'accounts' | 'endedSessions' | 'clock'>, sessionId: string): Promise<void> {
  const hash = sha256Hex(sessionId);
  const session = await deps.sessions.find(hash);
  if (!session) return;
  const now = deps.clock.now();
  if (!session.endedAt) {
    await deps.sessions.end(hash, now);
    await deps.accounts.record({ at: now, actorAccountId: session.accountId, entityId: session.accountId, action: 'signed_out' });
  }
  await deps.endedSessions.markEnded(sessionId, endedMarkerTtlMs(session.expiresAt, now));
}
