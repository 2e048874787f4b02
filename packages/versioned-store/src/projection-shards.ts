/**
 * The projections of a VersionedStore, spread over collections so that a lookup or a write by key reads a
 * bounded number of documents on FerretDB over SQLite, which scans a collection for every find, replace and
 * delete by `_id` (docs/decisions/0014, 0030, 0031):
 *
 * - a numbered record (key a positive integer, as campaigns and publishers are) lives in `<base>_r<k>`, the
 *   collection of its id range: ids `k * RECORDS_PER_COLLECTION + 1` .. `(k + 1) * RECORDS_PER_COLLECTION`.
 *   A collection never holds more than RECORDS_PER_COLLECTION records, however many there are in all;
 * - a named record (any other key, as placement slots are) lives in one of HASHED_SHARDS collections
 *   `<base>_<nn>` chosen by a hash of its key.
 *
 * A query goes to every collection the store has (listed by name) in parallel and the answers are merged in
 * memory (sort, limit), so callers see one collection. Indexes asked for with createIndex are created on the
 * collections that exist and on each new one before its first write.
 */
import { eachLimited, shardIndexOf, shardName } from '@pilot/mongo';
import type { Collection, Db, Document, Filter, IndexSpecification } from 'mongodb';

/** Records per id-range collection: a find by id reads at most this many projections on FerretDB. */
export const RECORDS_PER_COLLECTION = 256;
/** Collections the named (non-numeric) keys are hashed over. */
export const HASHED_SHARDS = 64;

const INDEX_BUILDS_AT_ONCE = 4;

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

/** The id a key stands for when it is a record number (a positive safe integer written plainly), else null. */
export function recordNumberOf(key: string): number | null {
  if (!/^[1-9][0-9]*$/.test(key)) return null;
  const number = Number(key);
  return Number.isSafeInteger(number) ? number : null;
}

/** `<base>_r<k>` for a numbered key, `<base>_<nn>` (hash) for a named one. */
export function projectionCollectionName(base: string, key: string): string {
  const number = recordNumberOf(key);
  if (number === null) return shardName(base, shardIndexOf(key, HASHED_SHARDS));
  return `${base}_r${Math.floor((number - 1) / RECORDS_PER_COLLECTION)}`;
}

const RANGE_SUFFIX = /^r(0|[1-9][0-9]*)$/;
const HASHED_SUFFIX = /^[0-9]{2}$/;

/** What follows `<base>_` in `name`, or null when `name` is not of `base`. */
function suffixOf(base: string, name: string): string | null {
  return name.startsWith(`${base}_`) ? name.slice(base.length + 1) : null;
}

/** Whether `name` is one of the projection collections of `base` (either layout). */
export function isProjectionCollection(base: string, name: string): boolean {
  const suffix = suffixOf(base, name);
  return suffix !== null && (RANGE_SUFFIX.test(suffix) || HASHED_SUFFIX.test(suffix));
}

export class ProjectionShards {
  private readonly indexSpecs: IndexSpecification[] = [];
  /** Collections this process has created the indexes of (or is creating them). */
  private readonly indexed = new Map<string, Promise<void>>();

  constructor(
    private readonly db: Db,
    private readonly base: string,
  ) {}

  /** The collection that holds the projection of `key` (indexes may still be missing: see `forWriting`). */
  of(key: string): Collection<KeyedDocument> {
    return this.db.collection<KeyedDocument>(projectionCollectionName(this.base, key));
  }

  /** The collection of `key`, with the store's indexes created on it first (once per process). */
  async forWriting(key: string): Promise<Collection<KeyedDocument>> {
    const collection = this.of(key);
    await this.indexesOn(collection);
    return collection;
  }

  /** Every projection collection of the store that exists now: the id ranges in id order, then the hashed ones. */
  async all(): Promise<Collection<KeyedDocument>[]> {
    const names = (await this.db.listCollections({}, { nameOnly: true }).toArray()).map((found) => found.name).filter((name) => isProjectionCollection(this.base, name));
    const rangeOf = (name: string) => (RANGE_SUFFIX.test(suffixOf(this.base, name) ?? '') ? Number(name.slice(name.lastIndexOf('_r') + 2)) : Number.POSITIVE_INFINITY);
    return names.sort((a, b) => rangeOf(a) - rangeOf(b) || (a < b ? -1 : a > b ? 1 : 0)).map((name) => this.db.collection<KeyedDocument>(name));
  }

  /** The hashed collections that exist now (numbered records lived there before decision 0031). */
  async hashed(): Promise<Collection<KeyedDocument>[]> {
    return (await this.all()).filter((collection) => HASHED_SUFFIX.test(suffixOf(this.base, collection.collectionName) ?? ''));
  }

  /** An index on every projection collection, those that exist and those created later. */
  async createIndex(spec: IndexSpecification): Promise<void> {
    this.indexSpecs.push(spec);
    // Every collection that exists gets it (and so has all the indexes asked for so far).
    // A few at a time: FerretDB over SQLite builds an index under a lock of the whole database file.
    const existing = await this.all();
    await eachLimited(existing, INDEX_BUILDS_AT_ONCE, async (collection) => void (await collection.createIndex(spec)));
    for (const collection of existing) this.indexed.set(collection.collectionName, Promise.resolve());
  }

  private indexesOn(collection: Collection<KeyedDocument>): Promise<void> {
    if (this.indexSpecs.length === 0) return Promise.resolve();
    let creating = this.indexed.get(collection.collectionName);
    if (!creating) {
      creating = Promise.all(this.indexSpecs.map((spec) => collection.createIndex(spec))).then(() => undefined);
      this.indexed.set(collection.collectionName, creating);
      creating.catch(() => this.indexed.delete(collection.collectionName));
    }
    return creating;
  }

  async find(filter: Filter<KeyedDocument>, { sort, limit, projection }: FindCurrentOptions = {}): Promise<KeyedDocument[]> {
    const fields = withSortFields(projection, sort);
    const answers = await Promise.all(
      (await this.all()).map((collection) => {
        let cursor = collection.find(filter, fields ? { projection: fields } : {});
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
