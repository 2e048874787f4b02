/**
 * When each publisher key was valid, as the owner saw it: from the 201 that showed it until the request
 * for the next key was sent (API.md: the previous key stops working before that answer is sent, so a
 * request sent while the rotation is in flight may be refused either way). A 401 for a request sent inside
 * that window is a valid key refused.
 */
interface KeyWindow {
  publisherId: number;
  validFrom: number;
  /** When the rotation that revokes it was sent; undefined while it is the current key. */
  revokedFrom?: number;
}

export class KeyLedger {
  private readonly windows = new Map<string, KeyWindow>();
  private readonly current = new Map<number, string>();

  issued(publisherId: number, key: string, answeredAt: number): void {
    this.windows.set(key, { publisherId, validFrom: answeredAt });
    this.current.set(publisherId, key);
  }

  rotationSent(publisherId: number, at: number): void {
    const key = this.current.get(publisherId);
    const window = key ? this.windows.get(key) : undefined;
    if (window && window.revokedFrom === undefined) window.revokedFrom = at;
  }

  keyOf(publisherId: number): string {
    const key = this.current.get(publisherId);
    if (!key) throw new Error(`no key for publisher ${publisherId}`);
    return key;
  }

  /** True when `key` was certainly valid at `sentAt` (issued before, its rotation not yet sent). */
  validAt(key: string, sentAt: number): boolean {
    const window = this.windows.get(key);
    if (!window) return false;
    return sentAt >= window.validFrom && (window.revokedFrom === undefined || sentAt < window.revokedFrom);
  }
}
