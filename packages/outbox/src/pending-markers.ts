/**
 * Which write-once entries may have events not yet on the bus (docs/decisions/0014): one marker
 * `{_id: <entry id>, at}` per entry in a small collection beside the entries. The writer inserts the marker
 * BEFORE its entry, so no entry with events is ever unmarked; whoever publishes the events deletes it. On
 * FerretDB over SQLite every update or delete scans its collection: a flag cleared in place scanned the whole
 * history, a marker deleted scans a collection that is nearly empty.
 */
import { isDuplicateKeyError } from '@pilot/mongo';
import type { Collection } from 'mongodb';

/** Where one writer's events wait: the entries carrying them (`outbox`) and the markers of those pending. */
export interface OutboxQueue {
  entries: Collection;
  pending: Collection<PendingMarker>;
  /**
   * Copies of the newest entries, looked in first: on FerretDB over SQLite a find by `_id` in the entries
   * scans them up to the entry, and a pending entry is one of the newest (decision 0031).
   */
  recentEntries: Collection;
}

export interface PendingMarker {
  _id: string;
  /** When the change was made; a marker whose entry is missing for long after this is swept. */
  at: Date;
}

/** The marker collection of an entries collection: `<entries>_pending`. */
export function pendingCollectionName(entriesCollection: string): string {
  return `${entriesCollection}_pending`;
}

/** Marks entry `entryId` pending; a marker already there (a retry, a concurrent writer) is as good. */
export async function markPending(pending: Collection<PendingMarker>, entryId: string, at: Date): Promise<void> {
  try {
    await pending.insertOne({ _id: entryId, at });
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
  }
}

/**
 * Entries written before markers carried `outboxPending: true` until published: each gets a marker, then
 * their flags are cleared in ONE update, so they are published once more at most, and not at every start.
 * Safe to run again after a crash (markers are inserted before any flag is cleared). Once done it is
 * recorded in `outbox_migrations` and skipped at later starts: on FerretDB the search decodes every entry
 * before it answers, which takes longer than an operation's deadline once the history is large (it has
 * none here, for the one start that runs it).
 */
export async function markFlaggedEntries(queue: OutboxQueue): Promise<number> {
  const migrations = queue.entries.db.collection<{ _id: string; at: Date }>('outbox_migrations');
  const done = `${queue.entries.collectionName}:flagged-entries-marked`;
  if (await migrations.findOne({ _id: done })) return 0;
  // For this one search (MongoDB answers it from the index; FerretDB scans either way), dropped once done.
  await queue.entries.createIndex({ outboxPending: 1 });
  const flagged = await queue.entries.find({ outboxPending: true }, { projection: { _id: 1, at: 1 }, timeoutMS: 0 }).toArray();
  for (const entry of flagged) await markPending(queue.pending, String(entry._id), entry.at instanceof Date ? entry.at : new Date(0));
  if (flagged.length > 0) await queue.entries.updateMany({ _id: { $in: flagged.map((entry) => entry._id) } }, { $set: { outboxPending: false } });
  try {
    await migrations.insertOne({ _id: done, at: new Date() });
  } catch (error) {
    if (!isDuplicateKeyError(error)) throw error;
  }
  await queue.entries.dropIndex('outboxPending_1').catch(() => undefined); // another replica may have dropped it
  return flagged.length;
}
