/**
 * Collections split by a stable hash of a string key. FerretDB over SQLite scans a whole collection on every
 * update, replace or delete, so a collection written by key is split in N smaller ones: a write scans one
 * shard (docs/decisions/0013, 0014). MongoDB indexes the same documents either way.
 */
import type { Collection, Db, Document } from 'mongodb';

/** FNV-1a (32-bit) of `key`, modulo `shards`: the same shard in every process and release. */
export function shardIndexOf(key: string, shards: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < key.length; i += 1) {
    hash ^= key.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash % shards;
}

/** `<base>_<nn>`: the name of shard `index` (two digits up to 100 shards). */
export function shardName(base: string, index: number): string {
  return `${base}_${String(index).padStart(2, '0')}`;
}

/** The N collections `<base>_00` .. `<base>_<N-1>` and which one holds a key. */
export class KeyedShards<T extends Document = Document> {
  readonly all: readonly Collection<T>[];

  constructor(db: Db, base: string, count: number) {
    this.all = Array.from({ length: count }, (_, index) => db.collection<T>(shardName(base, index)));
  }

  of(key: string): Collection<T> {
    return this.all[shardIndexOf(key, this.all.length)]!;
  }
}
