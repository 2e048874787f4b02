/**
 * How the counting stores reach their documents. The folder reads and writes a group of them: the stored ones in one find by `_id $in`, the
 * changed ones in one bulk write of replacements by `_id`. Three commands a group instead of one per
 * document; on the local store both are answered from the `_id` index and the bulk write is one
 * transaction (docs/storage.md).
 */
import { ServiceUnavailableError, withDeadline } from '@pilot/platform';
import type { AnyBulkWriteOperation, Collection, Filter, WithoutId } from 'mongodb';

/** Ids per find: the local store answers an `$in` of at most 1,000 ids from its index. */
const IDS_PER_FIND = 500;

interface Identified {
  _id: string;
}

/** The stored documents of these ids, by id (absent ones are missing from the map). */
export async function readByIds<T extends Identified>(collection: Collection<T>, ids: string[], into = new Map<string, T>()): Promise<Map<string, T>> {
  for (let start = 0; start < ids.length; start += IDS_PER_FIND) {
    const filter = { _id: { $in: ids.slice(start, start + IDS_PER_FIND) } } as Filter<T>;
    for (const document of (await collection.find(filter).toArray()) as T[]) into.set(document._id, document);
  }
  return into;
}

/** Replaces these stored documents by `_id`, in order, in one command (`upsert`: inserting those not stored). */
export async function replaceAll<T extends Identified>(collection: Collection<T>, documents: T[], upsert = false): Promise<void> {
  if (documents.length === 0) return;
  const replacements: Array<AnyBulkWriteOperation<T>> = documents.map((document) => ({
    replaceOne: { filter: { _id: document._id } as Filter<T>, replacement: document as WithoutId<T>, upsert },
  }));
  await collection.bulkWrite(replacements, { ordered: true });
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
