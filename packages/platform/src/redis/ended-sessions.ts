/**
 * Markers of ended workspace sessions, the one naming both sides share: publisher-identity writes
 * `<REDIS_KEY_PREFIX>session-ended:<SHA-256 of the session id>` when a session ends, before it answers the
 * logout; every gateway replica checks it (one EXISTS) before using a session it keeps cached, so a logout
 * takes effect at once everywhere although the gateways do not ask publisher-identity on every call.
 * The hash is the one publisher-identity stores the session under: the cookie value never reaches Redis.
 */
import { createHash } from 'node:crypto';
import { ServiceUnavailableError } from '../infrastructure-errors';
import type { Redis } from 'ioredis';

/** The longest a gateway may keep a resolved session (its SESSION_CACHE_MS is refused above it). */
export const SESSION_CACHE_MAX_MS = 10 * 60_000;

/**
 * How long a marker is kept: the session's remaining life plus the longest a gateway keeps a session, so
 * it outlives every cache entry that could hold the session (one made just before the logout lives
 * SESSION_CACHE_MAX_MS at most) and any difference between the clocks of the two services.
 */
export function endedMarkerTtlMs(expiresAt: Date, now: Date): number {
  return Math.max(0, expiresAt.getTime() - now.getTime()) + SESSION_CACHE_MAX_MS;
}

export class EndedSessionMarkers {
  constructor(
    private readonly redis: Redis,
    /** REDIS_KEY_PREFIX. */
    private readonly keyPrefix: string,
  ) {}

  keyOf(sessionId: string): string {
    return `${this.keyPrefix}session-ended:${createHash('sha256').update(sessionId).digest('hex')}`;
  }

  /** Writes the marker; Redis trouble is a ServiceUnavailableError (the caller answers 503, a retry writes it). */
  async markEnded(sessionId: string, ttlMs: number): Promise<void> {
    try {
      await this.redis.set(this.keyOf(sessionId), '1', 'PX', Math.max(1, Math.ceil(ttlMs)));
    } catch (error) {
      throw new ServiceUnavailableError('redis', `ended-session marker not written: ${(error as Error)?.message ?? 'unknown'}`);
    }
  }

  /**
   * Whether the session has a marker. Rejects when Redis does not answer within the client's command
   * timeout; the gateway then asks publisher-identity instead of trusting or refusing its cached copy.
   */
  async hasEnded(sessionId: string): Promise<boolean> {
    return (await this.redis.exists(this.keyOf(sessionId))) > 0;
  }
}
