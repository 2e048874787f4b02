/**
 * The outbox inside the written document (ARCHITECTURE.md, Events): a change's write-once entry carries the
 * events to publish (`outbox`) and, until everything the change implies is done, `pendingSince` (when it
 * was written). Whoever finishes it (its writer, or the relay for a writer that died or could not reach the
 * broker) publishes the events and then removes `pendingSince` by `_id`. A sparse index on `pendingSince`
 * holds only the unfinished entries, so on MongoDB the relay's search reads those alone.
 */
import type { KnownEvent } from '@pilot/contracts';
import type { Collection, IndexDescription } from 'mongodb';

/** An entry as the relay reads it. */
export interface OutboxEntry {
  _id: string;
  /** The events of the change, published at least once. */
  outbox: KnownEvent[];
  /** Present until the change is finished (its events on the bus, what it changed up to date). */
  pendingSince?: Date;
}

/** Where one writer's entries wait, and how what such an entry changed is brought up to date. */
export interface OutboxQueue {
  entries: Collection<OutboxEntry>;
  /** Runs before the entry's events go out: redoes what its writer may not have done (its projection). */
  finish(entry: OutboxEntry): Promise<void>;
}

/** The index the relay's search uses: only unfinished entries have the field. */
export const PENDING_INDEX: IndexDescription = { key: { pendingSince: 1 }, sparse: true, name: 'pendingSince_1' };

/** The entries unfinished since `cutoff` or earlier. */
export function pendingBefore(cutoff: Date): { pendingSince: { $lte: Date } } {
  return { pendingSince: { $lte: cutoff } };
}

/** Marks the entries finished (one update of them all by `_id`); finishing one twice is harmless. */
export async function markAllFinished(entries: Collection<OutboxEntry>, entryIds: readonly string[]): Promise<void> {
  await entries.updateMany({ _id: { $in: [...entryIds] } }, { $unset: { pendingSince: '' } });
}

/** How many entries are unfinished (the backlog gauge). */
export function countPending(entries: Collection<OutboxEntry>): Promise<number> {
  return entries.countDocuments({ pendingSince: { $exists: true } });
}
