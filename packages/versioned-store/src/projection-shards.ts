/**
 * The projections of a VersionedStore, spread over N collections by their string key (docs/decisions/0014):
 * a write scans one shard on FerretDB over SQLite instead of every record. A query goes to every shard in
 * parallel and the answers are merged in memory (sort, limit), so callers see one collection.
 */
import { KeyedShards } from '@pilot/mongo';
import type { Collection, Db, Document, Filter, IndexSpecification } from 'mongodb';

/** How a fan-out query orders its answer: field to 1 (ascending) or -1 (descending), in priority order. */
export type SortSpec = Record<string, 1 | -1>;

export interface FindCurrentOptions {
  sort?: SortSpec;
  limit?: number;
  /** Fields to return; an inclusion projection also returns the sort fields (the merge needs them). */
  projection?: Record<string, 0 | 1>;
}

/** A document whose `_id` is a string or a number, never an ObjectId. */
export interface KeyedDocument extends Document {
  _id: string | number;
}

export class ProjectionShards {
  private readonly shards: KeyedShards<KeyedDocument>;

  constructor(db: Db, base: string, count: number) {
    this.shards = new KeyedShards<KeyedDocument>(db, base, count);
  }

  /** The shard that holds the projection of `key`. */
  of(key: string): Collection<KeyedDocument> {
    return this.shards.of(key);
  }

  async createIndex(spec: IndexSpecification): Promise<void> {
    await Promise.all(this.shards.all.map((shard) => shard.createIndex(spec)));
  }

  async find(filter: Filter<KeyedDocument>, { sort, limit, projection }: FindCurrentOptions = {}): Promise<KeyedDocument[]> {
    const fields = withSortFields(projection, sort);
    const answers = await Promise.all(
      this.shards.all.map((shard) => {
        let cursor = shard.find(filter, fields ? { projection: fields } : {});
        if (sort) cursor = cursor.sort(sort);
        if (limit !== undefined) cursor = cursor.limit(limit);
        return cursor.toArray();
      }),
    );
    const merged = answers.flat();
    if (sort) merged.sort(comparatorOf(sort));
    return limit === undefined ? merged : merged.slice(0, limit);
  }
}

function withSortFields(projection: FindCurrentOptions['projection'], sort: SortSpec | undefined): FindCurrentOptions['projection'] {
  if (!projection || !sort || !Object.values(projection).includes(1)) return projection;
  return { ...projection, ...Object.fromEntries(Object.keys(sort).map((field) => [field, 1 as const])) };
}

function comparatorOf(sort: SortSpec): (a: Document, b: Document) => number {
  const order = Object.entries(sort);
  return (a, b) => {
    for (const [field, direction] of order) {
      const compared = compareValues(a[field], b[field]);
      if (compared !== 0) return compared * direction;
    }
    return 0;
  };
}

/** MongoDB's order for the values projections sort on: missing and null, numbers, strings, booleans, dates. */
function compareValues(a: unknown, b: unknown): number {
  const rankA = rankOf(a);
  const rankB = rankOf(b);
  if (rankA !== rankB) return rankA - rankB;
  const left = a instanceof Date ? a.getTime() : a;
  const right = b instanceof Date ? b.getTime() : b;
  if (left === right || rankA === 0) return 0;
  return (left as number | string | boolean) < (right as number | string | boolean) ? -1 : 1;
}

function rankOf(value: unknown): number {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number') return 1;
  if (typeof value === 'string') return 2;
  if (typeof value === 'boolean') return 3;
  if (value instanceof Date) return 4;
  return 5;
}
