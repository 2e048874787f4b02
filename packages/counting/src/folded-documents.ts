/**
 * How the counting stores reach their documents. The folder reads and writes a group of them: the stored ones in one find by `_id $in`, the
 * changed ones in one bulk write of replacements by `_id`. Three commands a group instead of one per
 * document; on the local store both are answered from the `_id` index and the bulk write is one
 * transaction (docs/storage.md).
 */
import { ServiceUnavailableError, withDeadline } from '@pilot/platform';
import { isDuplicateKeyError } from '@pilot/storage';
import type { AnyBulkWriteOperation, Collection, Filter, OptionalUnlessRequiredId, WithoutId } from 'mongodb';
import { fencedFilter, FoldingInterruptedError } from './folder-lease';

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

/**
 * Replaces these stored documents by `_id` under the lease's fencing number `fence`, in order, in one
 * command (`upsert`: inserting those not stored). A document a later holder of the lease wrote matches
 * nothing: the write fails with FoldingInterruptedError and leaves that document as the later holder wrote it.
 */
export async function replaceAll<T extends Identified>(collection: Collection<T>, documents: T[], fence: number, upsert = false): Promise<void> {
  if (documents.length === 0) return;
  const replacements: Array<AnyBulkWriteOperation<T>> = documents.map((document) => ({
    replaceOne: { filter: fencedFilter(document._id, fence) as Filter<T>, replacement: { ...document, fence } as WithoutId<T>, upsert },
  }));
  const result = await fenced(collection.bulkWrite(replacements, { ordered: true }));
  if (result.matchedCount + result.upsertedCount < documents.length) throw new FoldingInterruptedError();
}

/**
 * Inserts new documents under fencing number `fence`, in order. One stored meanwhile (by a later holder of
 * the lease) fails it with FoldingInterruptedError; the next pass reads it and adds only what it lacks.
 */
export async function insertAll<T extends Identified>(collection: Collection<T>, documents: T[], fence: number): Promise<void> {
  if (documents.length === 0) return;
  await fenced(
    collection.insertMany(
      documents.map((document) => ({ ...document, fence }) as OptionalUnlessRequiredId<T>),
      { ordered: true },
    ),
  );
}

/** An upsert refused on a document a later holder wrote (its `_id` taken) is the lease lost, as a replace that matched nothing. */
async function fenced<R>(write: Promise<R>): Promise<R> {
  try {
    return await write;
  } catch (error) {
    if (isDuplicateKeyError(error)) throw new FoldingInterruptedError();
    throw error;
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
