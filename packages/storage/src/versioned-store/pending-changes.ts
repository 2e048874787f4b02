/**
 * The outbox inside the record's own document (ARCHITECTURE.md, Events): a change writes, in the same
 * single-document update as the new state, a pending item holding its audit facts, the state for its
 * history entry and the events to publish, and `pendingSince` (the oldest pending item's time). Whoever
 * finishes the change (its writer, or the relay for a writer that died or could not reach the broker)
 * writes the history entry, publishes the events, then removes the items. A sparse index on `pendingSince`
 * holds only the records with unfinished changes, so the relay's search reads those alone.
 */
import type { KnownEvent } from '@pilot/contracts';
import type { Collection, Document, IndexDescription } from 'mongodb';

/** A record's id: a positive integer for numbered records, a name otherwise. */
export type RecordId = string | number;

/** Who changed a record, when, how and why: the audit facts of a change. */
export interface ChangeFacts {
  at: Date;
  actorAccountId: string;
  action: string;
  from: string | null;
  to: string | null;
  reason?: string | null;
}

/** One unfinished change of a record, as its document holds it. */
export interface PendingChange<S = unknown> extends ChangeFacts {
  /** The version the change wrote. */
  version: number;
  reason: string | null;
  /** The state it wrote, for its history entry. */
  state: S;
  /** Its events, published at least once, in order. */
  events: KnownEvent[];
}

/** A record taken by the relay: its version when taken and its unfinished changes, oldest first. */
export interface ClaimedRecord {
  _id: RecordId;
  version: number;
  pending: PendingChange[];
}

/** A relay's hold on a record: who holds it, and until when (`now` decides whether another's has lapsed). */
export interface RelayLease {
  holder: string;
  now: Date;
  until: Date;
}

/** Where one store's unfinished changes wait, and how the relay finishes them. */
export interface OutboxQueue {
  /** The records' collection (the backlog gauge counts its documents with `pendingSince`). */
  entries: Collection<Document>;
  /** Up to `limit` records with changes pending since `cutoff` or earlier, oldest first, none of `skip`. */
  leftovers(cutoff: Date, limit: number, skip: readonly RecordId[]): Promise<RecordId[]>;
  /**
   * Takes record `id` under `lease` (one atomic update of its document) when it still has changes pending
   * since `cutoff` and no other relay holds it (its lease lapsed, or it is this relay's); null otherwise.
   */
  claim(id: RecordId, cutoff: Date, lease: RelayLease): Promise<ClaimedRecord | null>;
  /** Writes the history entries of the record's pending changes; an entry written before is left as it is. */
  writeHistory(record: ClaimedRecord): Promise<void>;
  /** Keeps an event that fails its contract where an operator sees it (`parked_events`), out of the way of the next ones. */
  park(record: ClaimedRecord, change: PendingChange, event: unknown, problem: string, at: Date): Promise<void>;
  /** Removes the finished changes and the relay's hold; a newer change written meanwhile stays for its writer. */
  release(record: ClaimedRecord): Promise<void>;
  /** Gives up the relay's hold of a record it could not finish, so any relay may take it at its next pass. */
  letGo(record: ClaimedRecord): Promise<void>;
}

/** The index the relay's search uses: only records with unfinished changes have the field. */
export const PENDING_INDEX: IndexDescription = { key: { pendingSince: 1 }, sparse: true, name: 'pendingSince_1' };

/** The fields of a record's document that belong to its outbox, not to its state. */
export const OUTBOX_FIELDS = { pending: '', pendingSince: '', relayLeaseUntil: '', relayLeaseHolder: '' } as const;

/** A projection leaving the outbox fields out. */
export const WITHOUT_OUTBOX = { pending: 0, pendingSince: 0, relayLeaseUntil: 0, relayLeaseHolder: 0 } as const;
