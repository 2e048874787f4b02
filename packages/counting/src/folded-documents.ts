/**
 * How the folder writes the day documents, a group at a time, exactly once by each document's `lastFold`
 * and the lease's `fence`: one find by `_id $in`, one insert of the new documents, one bulk write of `$inc`
 * updates of the stored ones. On the local store each is answered from the `_id` index, and an insert of
 * many documents is one transaction where each upsert would be one of its own (docs/storage.md).
 */
import { ServiceUnavailableError, withDeadline } from '@pilot/platform';
import { MongoBulkWriteError, type AnyBulkWriteOperation, type Collection, type Filter, type OptionalUnlessRequiredId } from 'mongodb';
import { checkHeld, FoldingInterruptedError, type FoldGuard } from './folder-lease';

interface Identified {
  _id: string;
  /** The highest fold the document holds. */
  lastFold?: number;
  /** The fencing number of the folder lease under which the document was last written. */
  fence?: number;
}

/** A document's counts from a batch of folds: its key fields (a new document's), and its counts fold by fold (in number order). */
export interface Increment {
  _id: string;
  onInsert: Record<string, unknown>;
  parts: Array<{ seq: number; inc: Record<string, number> }>;
}

/** How many times a group is read and written again before its pass gives up (each round settles what raced it). */
const MAX_ROUNDS = 5;

/**
 * Adds each document's parts once. The group's documents are read by `_id $in` first: a document holding
 * a part already (its `lastFold` at or above it) gets only the parts above; one written by a later holder
 * of the lease (its `fence` above) stops the pass with FoldingInterruptedError. The new documents are
 * inserted in one command, whole, with `lastFold` and `fence`; the others get one `updateOne` each in one
 * bulk write, filter `{_id, lastFold: {$lt: <first part>}, fence: {$not: {$gt: <fence>}}}`, `$inc` of the
 * counts and `$set` of `lastFold` and `fence`, one single-document write. A write that raced another (an
 * insert colliding on `_id`, an update matching nothing) leaves the group to be read and written again:
 * whatever landed is then skipped by its `lastFold`.
 */
export async function incrementAll<T extends Identified>(collection: Collection<T>, documents: Increment[], guard: FoldGuard): Promise<void> {
  let pending = documents.filter((document) => document.parts.length > 0);
  for (let round = 0; pending.length > 0; round += 1) {
    if (round === MAX_ROUNDS) throw new Error('the fold writes of a group raced others too often');
    // A group is at most 1,000 ids: the local store answers an `$in` of up to 1,000 from the `_id` index.
    const found = await collection.find({ _id: { $in: pending.map(({ _id }) => _id) } } as Filter<T>).toArray();
    const stored = new Map((found as unknown as Identified[]).map((document) => [document._id, document]));
    const inserts: Increment[] = [];
    const updates: Increment[] = [];
    for (const document of pending) {
      const found = stored.get(document._id);
      if (found && (found.fence ?? 0) > guard.fence) throw new FoldingInterruptedError();
      const parts = document.parts.filter((part) => part.seq > (found?.lastFold ?? 0));
      if (parts.length > 0) (found ? updates : inserts).push({ ...document, parts });
    }
    await checkHeld(guard);
    const inserted = await insertAll(collection, inserts, guard.fence);
    const updated = await updateAll(collection, updates, guard.fence);
    if (inserted && updated) return;
    pending = [...inserts, ...updates];
  }
}

/** The counts of a document's parts, by field (`hours.07.adRequests` for a nested one). */
function sumOf(parts: Increment['parts']): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const part of parts) for (const [field, count] of Object.entries(part.inc)) sum[field] = (sum[field] ?? 0) + count;
  return sum;
}

/** New documents, whole, in one unordered insert: false when one collided on `_id` (inserted meanwhile). */
async function insertAll<T extends Identified>(collection: Collection<T>, documents: Increment[], fence: number): Promise<boolean> {
  if (documents.length === 0) return true;
  const whole = documents.map(({ _id, onInsert, parts }) => {
    const document: Record<string, unknown> = { _id, ...onInsert, lastFold: parts[parts.length - 1]!.seq, fence };
    for (const [field, count] of Object.entries(sumOf(parts))) {
      const path = field.split('.');
      let into = document;
      for (const key of path.slice(0, -1)) into = (into[key] ??= {}) as Record<string, unknown>;
      into[path[path.length - 1]!] = count;
    }
    return document as OptionalUnlessRequiredId<T>;
  });
  return collided(collection.insertMany(whole, { ordered: false }));
}

/** Stored documents' `$inc`, guarded by `lastFold` and `fence`: false when one matched nothing. */
async function updateAll<T extends Identified>(collection: Collection<T>, documents: Increment[], fence: number): Promise<boolean> {
  if (documents.length === 0) return true;
  const operations = documents.map(({ _id, parts }): AnyBulkWriteOperation<T> => {
    const filter = { _id, lastFold: { $lt: parts[0]!.seq }, fence: { $not: { $gt: fence } } };
    return { updateOne: { filter: filter as unknown as Filter<T>, update: { $inc: sumOf(parts), $set: { lastFold: parts[parts.length - 1]!.seq, fence } } as never } };
  });
  const result = await collection.bulkWrite(operations, { ordered: false });
  return result.matchedCount === documents.length;
}

/** A write whose only failures are collisions on `_id` (E11000): false then, true when it landed whole. */
async function collided(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    const errors = error instanceof MongoBulkWriteError ? (Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors]) : [error as { code?: number }];
    if (errors.length === 0 || errors.some((writeError) => writeError.code !== 11000)) throw error;
    return false;
  }
}

/** A read the service waits on, within `timeoutMs`; any failure of it is MongoDB unavailable (503). */
export async function guardedRead<T>(what: string, timeoutMs: number, work: () => Promise<T>): Promise<T> {
  try {
    return await withDeadline(work(), timeoutMs, 'mongodb');
  } catch (error) {
    if (error instanceof ServiceUnavailableError) throw error;
    throw new ServiceUnavailableError('mongodb', `${what} failed: ${(error as Error).message}`);
  }
}
