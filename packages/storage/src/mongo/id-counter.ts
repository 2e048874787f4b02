/**
 * New record ids from a counter document (`counters`, `_id` the name of the records' collection): one
 * atomic `$inc` a create, the same on every replica, so no replica hands out an id twice or needs to know
 * where the others are. A counter created for a collection that already holds records (a deployment with
 * data) starts above the highest id there: each process raises it with `$max` once before its first id.
 */
import type { Collection, Db, Document, Filter } from 'mongodb';
import { isDuplicateKeyError } from './errors';

interface Counter {
  _id: string;
  seq: number;
}

/** The collection of id counters in `db`. */
export const COUNTERS_COLLECTION = 'counters';

export class IdCounter {
  private readonly counters: Collection<Counter>;
  private seeded: Promise<void> | undefined;

  /**
   * `records` names the collection of the records the ids are for (and the counter), `alsoAbove` other
   * collections whose numeric field `field` holds ids handed out before (the audit of the records), so a
   * counter never starts below them.
   */
  constructor(
    private readonly db: Db,
    private readonly records: string,
    private readonly alsoAbove: ReadonlyArray<{ collection: string; field: string }> = [],
  ) {
    this.counters = db.collection<Counter>(COUNTERS_COLLECTION);
  }

  /** The next id: a positive integer never handed out before by any replica. */
  async next(): Promise<number> {
    this.seeded ??= this.seed().catch((error: unknown) => {
      this.seeded = undefined;
      throw error;
    });
    await this.seeded;
    const counter = await upsertRetried(() =>
      this.counters.findOneAndUpdate({ _id: this.name }, { $inc: { seq: 1 } }, { upsert: true, returnDocument: 'after' }),
    );
    if (!counter) throw new Error(`counter ${this.name} missing after its upsert`);
    return counter.seq;
  }

  private get name(): string {
    return this.records;
  }

  /** Raises the counter to the highest id in use (once a process; a no-op when it is above already). */
  private async seed(): Promise<void> {
    let highest = await highestOf(this.db.collection(this.records), '_id');
    for (const { collection, field } of this.alsoAbove) highest = Math.max(highest, await highestOf(this.db.collection(collection), field));
    await upsertRetried(() => this.counters.updateOne({ _id: this.name }, { $max: { seq: highest } }, { upsert: true }));
  }
}

async function highestOf(collection: Collection, field: string): Promise<number> {
  const [last] = await collection
    .find({ [field]: { $type: 'number' } } as Filter<Document>, { projection: { [field]: 1 } })
    .sort({ [field]: -1 })
    .limit(1)
    .toArray();
  const value = (last as Record<string, unknown> | undefined)?.[field];
  return typeof value === 'number' ? value : 0;
}

/**
 * Runs an upsert by `_id`, once more when it fails on a duplicate `_id`: two upserts of a document that did
 * not exist may both insert, and the second then finds it (MongoDB retries this case itself since 4.2).
 */
export async function upsertRetried<T>(upsert: () => Promise<T>): Promise<T> {
  try {
    return await upsert();
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
    return upsert();
  }
}
