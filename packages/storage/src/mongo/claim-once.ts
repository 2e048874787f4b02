import type { Model } from 'mongoose';
import { isDuplicateKeyError } from './errors';

/**
 * FerretDB (our local and test database) has no atomic read-modify-write: concurrent conditional updates
 * can all "win" and concurrent $inc loses increments. An insert against a unique key IS atomic on every
 * backend, so it is the one primitive we build exclusivity on (docs/storage.md).
 *
 * Inserts `document` with `_id: id` through `model`; true when this call created it, false when it already existed.
 */
export async function claimOnce<T extends { _id: string | number }>(model: Model<T>, id: T['_id'], document: Omit<T, '_id'>): Promise<boolean> {
  try {
    await model.create({ ...document, _id: id });
    return true;
  } catch (error) {
    if (isDuplicateKeyError(error)) return false;
    throw error;
  }
}
