/**
 * The one-time move of an earlier version's documents into the day documents (docs/operations.md): a
 * `totals` document per grain and month (`{grain, month, lastFold, days: {<YYYY-MM-DD>: {<kind>: n}}}`)
 * becomes a `counts_days` document per day, a `totals_hourly` document per grain and day
 * (`{grain, day, lastFold, hours}`) a `counts_hours` one, each with the `lastFold` of the document it comes
 * from, so that the folds it held are skipped as before; the breakdowns' month documents (`breakdowns`,
 * `breakdown_folds`), whose counts the day documents hold too, are dropped. The folder runs it under its lease before it
 * applies anything; it is idempotent (a day document already there is left as it is: an upsert that only
 * sets on insert) and drops each old
 * collection once it is moved.
 */
import type { Db } from 'mongodb';
import { dayKeyOf, grainFieldsOf } from './layout';

interface MonthDocument {
  grain: string;
  lastFold: number;
  days?: Record<string, Record<string, number>>;
  day?: string;
  hours?: Record<string, Record<string, number>>;
  campaignOwnerAccountId?: string;
  publisherOwnerAccountId?: string;
}

const DOCUMENTS_PER_INSERT = 500;

/** Moves `totals` and `totals_hourly`, when there, into `counts_days` and `counts_hours`; the documents moved. */
export async function migrateMonthDocuments(db: Db, fence: number): Promise<number> {
  const names = new Set((await db.listCollections({}, { nameOnly: true }).toArray()).map(({ name }) => name));
  let moved = 0;
  for (const [from, to] of [
    ['totals', 'counts_days'],
    ['totals_hourly', 'counts_hours'],
  ] as const) {
    if (!names.has(from)) continue;
    let batch: Array<Record<string, unknown>> = [];
    const flush = async () => {
      moved += await insertMissing(db, to, batch);
      batch = [];
    };
    for await (const old of db.collection<MonthDocument>(from).find({})) {
      const fields = grainFieldsOf(old.grain);
      const key = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null));
      const owners = { ...(old.campaignOwnerAccountId ? { campaignOwnerAccountId: old.campaignOwnerAccountId } : {}), ...(old.publisherOwnerAccountId ? { publisherOwnerAccountId: old.publisherOwnerAccountId } : {}) };
      const guard = { lastFold: old.lastFold, fence };
      if (old.hours && old.day) {
        batch.push({ _id: dayKeyOf(fields, old.day), ...key, day: old.day, startsAt: new Date(`${old.day}T00:00:00.000Z`), hours: old.hours, ...owners, ...guard });
      }
      for (const [day, counts] of Object.entries(old.days ?? {})) batch.push({ _id: dayKeyOf(fields, day), ...key, day, ...counts, ...owners, ...guard });
      if (batch.length >= DOCUMENTS_PER_INSERT) await flush();
    }
    await flush();
    await db.collection(from).drop();
  }
  // The breakdowns' own documents: the day documents answer the breakdowns now.
  for (const name of ['breakdowns', 'breakdown_folds']) if (names.has(name)) await db.collection(name).drop();
  return moved;
}

/** Inserts the documents not stored yet (a run cut short and started again finds some there, and leaves them). */
async function insertMissing(db: Db, collection: string, documents: Array<Record<string, unknown>>): Promise<number> {
  if (documents.length === 0) return 0;
  const result = await db.collection(collection).bulkWrite(
    documents.map(({ _id, ...fields }) => ({ updateOne: { filter: { _id: _id as never }, update: { $setOnInsert: fields }, upsert: true } })),
    { ordered: false },
  );
  return result.upsertedCount;
}
