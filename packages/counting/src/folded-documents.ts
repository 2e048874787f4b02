/**
 * The fold's write, a group of day documents at a time: one find by `_id $in`, one insert of the new
 * documents whole, one bulk write of guarded `$inc`s of the stored ones. Upserts would be one command, but
 * the local store writes each upsert in a transaction of its own, an insert of 1,000 documents in one.
 */
import { MongoBulkWriteError, type AnyBulkWriteOperation, type Collection, type Filter } from 'mongodb';
import { isBreakdownGrain } from './breakdown-layout';
import { checkHeld, FoldingInterruptedError, type FoldGuard } from './folder-lease';
import type { Fold } from './journal';
import { dayKeyOf, grainFieldsOf, parseField, parseHourField } from './layout';

/** A document's counts from a batch of folds: the fields a new one is inserted with, and its counts fold by fold. */
type Increment = { _id: string; onInsert: Record<string, unknown>; parts: Array<{ seq: number; inc: Record<string, number> }> };

type Stored = { _id: string; lastFold?: number; fence?: number };

/** Documents per group: the most an `_id $in` the local store answers from its index holds. */
const DOCUMENTS_PER_GROUP = 1_000;
/** Rounds of reading and writing a group again before the pass gives up (each settles what raced it). */
const MAX_ROUNDS = 5;

/** Adds the folds' counts to the day documents of the grains they counted; `owners` maps `c:<id>` / `p:<id>` to accounts. */
export async function writeFolds<T extends Stored>(collection: Collection<T>, folds: Fold[], owners: Map<string, string>, guard: FoldGuard): Promise<void> {
  const increments = incrementsOf(folds, owners);
  for (let start = 0; start < increments.length; start += DOCUMENTS_PER_GROUP) await incrementAll(collection as unknown as Collection<Stored>, increments.slice(start, start + DOCUMENTS_PER_GROUP), guard);
}

/** The folds' counts (in number order) as one increment per grain and day (an hour under `hours.<HH>`). */
function incrementsOf(folds: Fold[], owners: Map<string, string>): Increment[] {
  const documents = new Map<string, Increment>();
  for (const { seq, counts } of [...folds].sort((a, b) => a.seq - b.seq)) {
    for (const [grain, fields] of counts) {
      if (isBreakdownGrain(grain)) continue; // Redis' alone: the day documents answer the breakdowns
      for (const [field, count] of fields) {
        const hour = parseHourField(field);
        const parsed = hour ? { day: hour.day, kind: `hours.${hour.hour}.${hour.kind}` } : parseField(field);
        if (!parsed || count <= 0) continue;
        const id = `${grain}|${parsed.day}`;
        let document = documents.get(id);
        if (!document) documents.set(id, (document = newIncrement(grain, parsed.day, owners)));
        let part = document.parts[document.parts.length - 1];
        if (part?.seq !== seq) document.parts.push((part = { seq, inc: {} }));
        part.inc[parsed.kind] = (part.inc[parsed.kind] ?? 0) + count;
      }
    }
  }
  return [...documents.values()];
}

/** A field the grain does not name is left out of a new document (a query's null matches it). */
function newIncrement(grain: string, day: string, owners: Map<string, string>): Increment {
  const fields = grainFieldsOf(grain);
  const onInsert: Record<string, unknown> = { ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null)), day };
  const campaignOwner = fields.campaignId === null ? undefined : owners.get(`c:${fields.campaignId}`);
  const publisherOwner = fields.publisherId === null ? undefined : owners.get(`p:${fields.publisherId}`);
  if (campaignOwner) onInsert.campaignOwnerAccountId = campaignOwner;
  if (publisherOwner) onInsert.publisherOwnerAccountId = publisherOwner;
  return { _id: dayKeyOf(fields, day), onInsert, parts: [] };
}

/**
 * Adds each document's parts above its `lastFold`; one a later lease holder wrote (its `fence` above) stops
 * the pass. A write that raced another (an insert colliding, an update matching nothing) reads the group again.
 */
async function incrementAll(collection: Collection<Stored>, documents: Increment[], guard: FoldGuard): Promise<void> {
  let pending = documents;
  for (let round = 0; pending.length > 0; round += 1) {
    if (round === MAX_ROUNDS) throw new Error('the fold writes of a group raced others too often');
    const found = await collection.find({ _id: { $in: pending.map(({ _id }) => _id) } }, { projection: { lastFold: 1, fence: 1 } }).toArray();
    const stored = new Map(found.map((document) => [document._id, document]));
    const inserts: Increment[] = [];
    const updates: Increment[] = [];
    for (const document of pending) {
      const found = stored.get(document._id);
      if (found && (found.fence ?? 0) > guard.fence) throw new FoldingInterruptedError();
      const parts = document.parts.filter((part) => part.seq > (found?.lastFold ?? 0));
      if (parts.length > 0) (found ? updates : inserts).push({ ...document, parts });
    }
    await checkHeld(guard);
    const [inserted, updated] = [await insertAll(collection, inserts, guard.fence), await updateAll(collection, updates, guard.fence)];
    if (inserted && updated) return;
    pending = [...inserts, ...updates];
  }
}

/** The counts of a document's parts, by field (`hours.07.adRequests` for an hour). */
function sumOf(parts: Increment['parts']): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const part of parts) for (const [field, count] of Object.entries(part.inc)) sum[field] = (sum[field] ?? 0) + count;
  return sum;
}

/** New documents, whole, in one unordered insert: false when one collided on `_id`. */
async function insertAll(collection: Collection<Stored>, documents: Increment[], fence: number): Promise<boolean> {
  if (documents.length === 0) return true;
  const whole = documents.map(({ _id, onInsert, parts }) => {
    const document: Record<string, unknown> = { _id, ...onInsert, lastFold: parts[parts.length - 1]!.seq, fence };
    for (const [field, count] of Object.entries(sumOf(parts))) {
      const path = field.split('.');
      let into = document;
      for (const key of path.slice(0, -1)) into = (into[key] ??= {}) as Record<string, unknown>;
      into[path[path.length - 1]!] = count;
    }
    return document as Stored;
  });
  try {
    await collection.insertMany(whole, { ordered: false });
    return true;
  } catch (error) {
    const errors = error instanceof MongoBulkWriteError ? [error.writeErrors].flat() : [error as { code?: number }];
    if (errors.length === 0 || errors.some((writeError) => writeError.code !== 11000)) throw error;
    return false;
  }
}

/** Stored documents' `$inc`, guarded by `lastFold` and `fence`: false when one matched nothing. */
async function updateAll(collection: Collection<Stored>, documents: Increment[], fence: number): Promise<boolean> {
  if (documents.length === 0) return true;
  const operations = documents.map(({ _id, parts }): AnyBulkWriteOperation<Stored> => {
    const filter = { _id, lastFold: { $lt: parts[0]!.seq }, fence: { $not: { $gt: fence } } } as Filter<Stored>;
    return { updateOne: { filter, update: { $inc: sumOf(parts), $set: { lastFold: parts[parts.length - 1]!.seq, fence } } } };
  });
  return (await collection.bulkWrite(operations, { ordered: false })).matchedCount === documents.length;
}
