/**
 * The one-time move of earlier versions' documents into the day documents (docs/operations.md), each with
 * the `lastFold` of the document it comes from, so that the folds it held are skipped as before:
 * - a `totals` document per grain and month (`{grain, lastFold, days: {<YYYY-MM-DD>: {<kind>: n}}}`)
 *   becomes a `counts_days` document per day;
 * - an hour document per grain and day, `totals_hourly` (`{grain, day, lastFold, hours}`) or
 *   `counts_hours` (the day document's key fields, `hours`), becomes the `hours` of the day's document;
 * - the breakdowns' documents (`breakdowns`, `breakdown_folds`) are dropped: the day documents hold their counts.
 * The folder runs it under its lease before it applies anything, so no fold lands meanwhile and the moves
 * are idempotent (a day document there is kept, `hours` set to the same value again); each old collection
 * is dropped once moved.
 */
import type { AnyBulkWriteOperation, Db } from 'mongodb';
import { dayKeyOf, grainFieldsOf } from './layout';

const DOCUMENTS_PER_WRITE = 500;
const KEY_FIELDS = ['level', 'campaignId', 'publisherId', 'accountId', 'placementId'];
const OWNER_FIELDS = ['campaignOwnerAccountId', 'publisherOwnerAccountId'];

/** Moves whichever earlier collections are there into `counts_days`; the day documents written. */
export async function migrateEarlierDocuments(db: Db, fence: number): Promise<number> {
  const names = new Set((await db.listCollections({}, { nameOnly: true }).toArray()).map(({ name }) => name));
  let moved = 0;
  for (const from of ['totals', 'totals_hourly', 'counts_hours']) {
    if (!names.has(from)) continue;
    let batch: Array<AnyBulkWriteOperation<{ _id: string }>> = [];
    const flush = async () => {
      if (batch.length > 0) moved += (await db.collection<{ _id: string }>('counts_days').bulkWrite(batch, { ordered: false })).upsertedCount;
      batch = [];
    };
    for await (const old of db.collection<{ _id: string } & Record<string, unknown>>(from).find({})) {
      // counts_hours holds the key as fields and its `_id` already; the month and hourly documents name a grain.
      const fields = old.grain ? grainFieldsOf(old.grain as string) : undefined;
      const kept = { ...pick(fields ?? old, KEY_FIELDS), ...pick(old, OWNER_FIELDS), lastFold: old.lastFold as number, fence };
      const idOf = (day: string) => (fields ? dayKeyOf(fields, day) : old._id);
      for (const [day, counts] of Object.entries((old.days ?? {}) as Record<string, object>)) {
        batch.push({ updateOne: { filter: { _id: idOf(day) }, update: { $setOnInsert: { ...kept, day, ...counts } }, upsert: true } });
      }
      if (old.hours && old.day) {
        const day = old.day as string;
        batch.push({ updateOne: { filter: { _id: idOf(day) }, update: { $set: { hours: old.hours }, $setOnInsert: { ...kept, day } }, upsert: true } });
      }
      if (batch.length >= DOCUMENTS_PER_WRITE) await flush();
    }
    await flush();
    await db.collection(from).drop();
  }
  for (const name of ['breakdowns', 'breakdown_folds']) if (names.has(name)) await db.collection(name).drop();
  return moved;
}

/** The fields of `document` among `names` that it has. */
function pick(document: object, names: string[]): Record<string, unknown> {
  const fields = document as Record<string, unknown>;
  return Object.fromEntries(names.filter((name) => fields[name] !== undefined && fields[name] !== null).map((name) => [name, fields[name]]));
}
