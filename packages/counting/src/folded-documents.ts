/**
 * How the folder writes the day documents: a group of them in one bulk write of `$inc` upserts by `_id`,
 * exactly once by each document's `lastFold` and the lease's `fence`, reading the group back by `_id $in`
 * only after a collision. On the local store both are answered from the `_id` index and the bulk write is
 * one transaction (docs/storage.md).
 */
import { ServiceUnavailableError, withDeadline } from '@pilot/platform';
import { MongoBulkWriteError, type AnyBulkWriteOperation, type Collection, type Filter } from 'mongodb';
import { checkHeld, FoldingInterruptedError, type FoldGuard } from './folder-lease';

/** Ids per find: the local store answers an `$in` of at most 1,000 ids from its index. */
const IDS_PER_FIND = 500;

interface Identified {
  _id: string;
  /** The fencing number of the folder lease under which the document was last written. */
  fence?: number;
}

/** The stored documents of these ids, by id (absent ones are missing from the map). */
export async function readByIds<T extends Identified>(collection: Collection<T>, ids: string[], into = new Map<string, T>()): Promise<Map<string, T>> {
  for (let start = 0; start < ids.length; start += IDS_PER_FIND) {
    const filter = { _id: { $in: ids.slice(start, start + IDS_PER_FIND) } } as Filter<T>;
    for (const document of (await collection.find(filter).toArray()) as T[]) into.set(document._id, document);
  }
  return into;
}

/** A document's counts from a batch of folds: what it gets on insert, and its `$inc` fold by fold (in number order). */
export interface Increment {
  _id: string;
  onInsert: Record<string, unknown>;
  parts: Array<{ seq: number; inc: Record<string, number> }>;
}

/**
 * Adds each document's parts with `$inc`, once, in one bulk write of upserts whose filter is
 * `{_id, lastFold: {$lt: <its first part>}, fence: {$not: {$gt: <fence>}}}`, setting `lastFold` to its last
 * part and `fence` in the same write. A document that holds some of its parts already (or was written by a
 * later holder of the lease) matches nothing and its upsert collides on `_id` (E11000). Then the group's
 * documents are read (a store may stop a bulk write at its first error, so which writes landed is read,
 * not assumed) and written again with only the parts above each one's `lastFold` (none: already
 * applied), unless a later holder wrote one, which stops the pass with FoldingInterruptedError.
 */
export async function incrementAll<T extends Identified>(collection: Collection<T>, documents: Increment[], guard: FoldGuard): Promise<void> {
  let pending = documents.filter((document) => document.parts.length > 0);
  while (pending.length > 0) {
    await checkHeld(guard);
    if (await upsertAll(collection, pending, guard.fence)) return;
    const stored = await readByIds(collection as unknown as Collection<Identified & { lastFold?: number }>, pending.map(({ _id }) => _id));
    if ([...stored.values()].some((document) => (document.fence ?? 0) > guard.fence)) throw new FoldingInterruptedError();
    const left = pending.flatMap((document) => {
      const parts = document.parts.filter((part) => part.seq > (stored.get(document._id)?.lastFold ?? 0));
      return parts.length > 0 ? [{ ...document, parts }] : [];
    });
    const partsOf = (group: Increment[]) => group.reduce((sum, document) => sum + document.parts.length, 0);
    // A collision means some part is held already; none found held is a document removed meanwhile.
    if (partsOf(left) === partsOf(pending)) throw new Error('a fold write collided on a document that holds none of its folds');
    pending = left;
  }
}

/** The bulk write of incrementAll: false when an upsert collided on `_id`. */
async function upsertAll<T extends Identified>(collection: Collection<T>, documents: Increment[], fence: number): Promise<boolean> {
  const operations = documents.map(({ _id, onInsert, parts }): AnyBulkWriteOperation<T> => {
    const inc: Record<string, number> = {};
    for (const part of parts) for (const [field, count] of Object.entries(part.inc)) inc[field] = (inc[field] ?? 0) + count;
    const filter = { _id, lastFold: { $lt: parts[0]!.seq }, fence: { $not: { $gt: fence } } };
    return { updateOne: { filter: filter as unknown as Filter<T>, update: { $inc: inc, $set: { lastFold: parts[parts.length - 1]!.seq, fence }, $setOnInsert: onInsert } as never, upsert: true } };
  });
  try {
    await collection.bulkWrite(operations, { ordered: false });
    return true;
  } catch (error) {
    if (!(error instanceof MongoBulkWriteError)) throw error;
    const errors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
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
