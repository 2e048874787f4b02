/**
 * Which write-once entries may have events not yet on the bus (docs/decisions/0014): one marker
 * `{_id: <entry id>, at}` per entry in a small collection beside the entries. The writer inserts the marker
 * BEFORE its entry, so no entry with events is ever unmarked; whoever publishes the events deletes it. On
 * FerretDB over SQLite every update or delete scans its collection: a flag cleared in place scanned the whole
 * history, a marker deleted scans a collection that is nearly empty.
 */
import { isDuplicateKeyError, wholeCollectionScan } from '@pilot/mongo';
import type { Collection } from 'mongodb';

/** Where one writer's events wait: the entries carrying them (`outbox`) and the markers of those pending. */
export interface OutboxQueue {
  entries: Collection;
  pending: Collection<PendingMarker>;
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
 * Safe to run again after a crash (markers are inserted before any flag is cleared).
 */
export async function markFlaggedEntries(queue: OutboxQueue): Promise<number> {
  const flagged = await queue.entries.find({ outboxPending: true }, { projection: { _id: 1, at: 1 }, ...wholeCollectionScan(queue.entries) }).toArray();
  if (flagged.length === 0) return 0;
  for (const entry of flagged) await markPending(queue.pending, String(entry._id), entry.at instanceof Date ? entry.at : new Date(0));
  await queue.entries.updateMany({ _id: { $in: flagged.map((entry) => entry._id) } }, { $set: { outboxPending: false } });
  return flagged.length;
}
