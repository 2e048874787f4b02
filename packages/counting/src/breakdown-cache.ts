/**
 * The decoded breakdown documents of viewers' scopes a reader has used, kept in the process within a byte
 * bound (least recently used out first), by `_id` (docs/counting.md). A document of the whole network
 * holds an item per campaign and the local store takes most of a second to decode one; a past month's
 * documents almost never change, and the current month's are taken forward by what Redis still holds.
 *
 * An entry is what the document held as of its `lastFold`; whether a read may use it is the store's
 * business (breakdown-store.ts), by the scope-month's fold marks (breakdown-marks.ts) and what Redis keeps.
 */
import { LRUCache } from 'lru-cache';
import type { ItemCounts, StoredBreakdown } from './breakdown-periods';

export interface CachedBreakdown extends StoredBreakdown {
  /** When it was read from MongoDB or written by this process's folder (ms). */
  loadedAt: number;
}

/** The default bound: a month document of 10,000 campaigns takes about 2 MB of heap. */
export const DEFAULT_BREAKDOWN_CACHE_BYTES = 32 * 1024 * 1024;

/**
 * About what the decoded items take on the heap: a property and its key string per item, an object per
 * item, a number per count (measured with tests/bench/breakdown.bench.ts, docs/performance.md).
 */
export function heapBytesOf(items: ItemCounts): number {
  let bytes = 256;
  for (const [id, counts] of Object.entries(items)) bytes += 80 + 2 * id.length + 24 * Object.keys(counts).length;
  return bytes;
}

export class BreakdownCache {
  private readonly entries: LRUCache<string, CachedBreakdown> | null;

  /** `maxBytes` 0 keeps nothing. */
  constructor(readonly maxBytes: number) {
    this.entries = maxBytes > 0 ? new LRUCache<string, CachedBreakdown>({ maxSize: maxBytes, sizeCalculation: (entry) => Math.max(1, heapBytesOf(entry.items)) }) : null;
  }

  get(id: string): CachedBreakdown | undefined {
    return this.entries?.get(id);
  }

  /** Keeps what was read or written of `id`, unless an entry as of a later fold is there already. */
  keep(id: string, document: StoredBreakdown, at: number): void {
    if (!this.entries || document.days) return;
    const kept = this.entries.peek(id);
    if (kept && kept.lastFold > document.lastFold) return;
    const entry: CachedBreakdown = { lastFold: document.lastFold, items: document.items, loadedAt: at };
    if (document.lastDay !== undefined) entry.lastDay = document.lastDay;
    this.entries.set(id, entry);
  }

  /** As `keep`, for an id a reader has asked for already (the folder's writes do not fill the cache). */
  keepIfKept(id: string, document: StoredBreakdown, at: number): void {
    if (this.entries?.has(id)) this.keep(id, document, at);
  }

  forget(id: string): void {
    this.entries?.delete(id);
  }

  /** The bytes the entries are reckoned at, and how many there are. */
  usage(): { bytes: number; entries: number } {
    return { bytes: this.entries?.calculatedSize ?? 0, entries: this.entries?.size ?? 0 };
  }
}
