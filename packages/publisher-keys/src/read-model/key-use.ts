/**
 * When a platform's key (live or test) was last used for an ad request, kept
 * cheaply: one Redis string per key kind, `<prefix>key-use:<publisherId>:<kind>` = epoch milliseconds,
 * written at most once a minute per key and process (an in-memory note of the last write), never a
 * database write and never awaited by the ad request. Precision is therefore "within a minute".
 */
import type { Redis } from 'ioredis';
import type { KeyKind } from '../key-format';

/** A key's use is written again only after this long. */
export const KEY_USE_RESOLUTION_MS = 60_000;
/** The most keys a process remembers writing; beyond it the memory starts over (a write more, never a use lost). */
const MAX_REMEMBERED = 100_000;

export interface KeyUses {
  live: Date | null;
  test: Date | null;
}

function entryOf(prefix: string, publisherId: number, kind: KeyKind): string {
  return `${prefix}key-use:${publisherId}:${kind}`;
}

/** The ad path's side: notes a use, throttled; failures are reported to `onError` and never thrown. */
export class KeyUseRecorder {
  private readonly lastWritten = new Map<string, number>();

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  /** True when this call wrote (or tried to write) the use; false when a write within the last minute covers it. */
  touch(publisherId: number, kind: KeyKind, now: Date): boolean {
    const entry = entryOf(this.prefix, publisherId, kind);
    const at = now.getTime();
    const previous = this.lastWritten.get(entry);
    if (previous !== undefined && at - previous < KEY_USE_RESOLUTION_MS) return false;
    if (this.lastWritten.size >= MAX_REMEMBERED) this.lastWritten.clear();
    this.lastWritten.set(entry, at);
    this.redis.set(entry, String(at)).catch((error: unknown) => {
      // Let the next request try again rather than waiting out the minute.
      this.lastWritten.delete(entry);
      this.onError(error);
    });
    return true;
  }
}

/** The workspace's side: the last uses of a platform's two keys, in one round trip. */
export async function readKeyUses(redis: Redis, prefix: string, publisherId: number): Promise<KeyUses> {
  const [live, test] = await redis.mget(entryOf(prefix, publisherId, 'live'), entryOf(prefix, publisherId, 'test'));
  const dateOf = (value: string | null | undefined): Date | null => {
    const ms = Number(value);
    return value && Number.isFinite(ms) ? new Date(ms) : null;
  };
  return { live: dateOf(live), test: dateOf(test) };
}
