/**
 * Resolved workspace sessions kept in the process for up to SESSION_CACHE_MS, so that a
 * workspace call does not wait for publisher-identity every time. A kept session is used only before its
 * own expiresAt, and only once Redis has said it carries no ended-session marker: publisher-identity writes
 * one before it answers a logout, so the logout takes effect at once on every replica. When Redis does not
 * answer (the client's command timeout), the session is resolved with publisher-identity as if it were not
 * kept: Redis trouble neither signs anyone out nor lets an ended session through. SESSION_CACHE_MS=0 keeps
 * nothing and asks publisher-identity on every call.
 */
import type { Clock, EndedSessionMarkers, Principal } from '@pilot/platform';
import { LRUCache } from 'lru-cache';
import type { ResolvedSession } from './session';

/** A few hundred bytes each: the sessions of 10,000 people working at once in a few megabytes. */
const MAX_ENTRIES = 10_000;

interface KeptSession {
  principal: Principal;
  /** Epoch milliseconds: SESSION_CACHE_MS after it was resolved, or the session's expiry if sooner. */
  usableUntil: number;
}

export interface SessionCacheOptions {
  /** Asks publisher-identity; null for no live session. */
  resolve(sessionId: string, requestId: string): Promise<ResolvedSession | null>;
  markers: EndedSessionMarkers;
  clock: Clock;
  /** SESSION_CACHE_MS; 0 keeps nothing. */
  maxAgeMs: number;
}

export class SessionCache {
  private readonly kept = new LRUCache<string, KeptSession>({ max: MAX_ENTRIES });

  constructor(private readonly options: SessionCacheOptions) {}

  /** The account signed in with `sessionId`, or null for no live session. */
  async principalOf(sessionId: string, requestId: string): Promise<Principal | null> {
    const kept = this.usable(sessionId);
    if (kept) {
      const ended = await this.options.markers.hasEnded(sessionId).catch(() => null);
      if (ended === false) return kept.principal;
      this.kept.delete(sessionId);
      if (ended === true) return null;
    }
    const resolved = await this.options.resolve(sessionId, requestId);
    if (!resolved) {
      this.kept.delete(sessionId);
      return null;
    }
    this.keep(sessionId, resolved);
    return resolved.principal;
  }

  private usable(sessionId: string): KeptSession | null {
    if (this.options.maxAgeMs === 0) return null;
    const kept = this.kept.get(sessionId);
    if (!kept) return null;
    if (this.options.clock.now().getTime() < kept.usableUntil) return kept;
    this.kept.delete(sessionId);
    return null;
  }

  private keep(sessionId: string, resolved: ResolvedSession): void {
    if (this.options.maxAgeMs === 0 || !resolved.expiresAt) return;
    const now = this.options.clock.now().getTime();
    const usableUntil = Math.min(now + this.options.maxAgeMs, resolved.expiresAt.getTime());
    if (usableUntil > now) this.kept.set(sessionId, { principal: resolved.principal, usableUntil });
  }
}
