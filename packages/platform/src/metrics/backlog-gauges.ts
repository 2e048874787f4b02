/**
 * Gauges of work waiting, read at scrape time from where it waits (read-only: a scrape changes nothing).
 * Structural types keep the platform free of the outbox's and the counting pipeline's packages.
 */
import type { Registry } from 'prom-client';
import { gaugeIn } from './metric-helpers';

/** The entries collection of an outbox (a history): its unfinished entries carry `pendingSince`. */
export interface OutboxEntries {
  collectionName: string;
  countDocuments(filter: { pendingSince: { $exists: true } }): Promise<number>;
}

/** `pilot_outbox_pending_entries{collection}`: changes not yet finished (events not yet on the bus, or a projection to redo). */
export function registerOutboxBacklog(registry: Registry, queues: () => { entries: OutboxEntries }[]): void {
  gaugeIn(registry, 'pilot_outbox_pending_entries', 'Outbox entries not yet finished (their events not yet on the bus), by history collection', ['collection'], async (gauge) => {
    for (const { entries } of queues()) gauge.set({ collection: entries.collectionName }, await entries.countDocuments({ pendingSince: { $exists: true } }));
  });
}

/** What the counting journal tells of its backlog (CountJournal.oldestUnapplied). */
export interface CountingBacklog {
  oldestUnapplied(): Promise<{ interval: number | null; folds: number }>;
}

/**
 * `pilot_counting_lag_seconds`: how long the oldest closed counting interval has waited to be folded into
 * the totals (0 when only the current interval is open), and `pilot_counting_pending_folds`.
 */
export function registerCountingLag(registry: Registry, journal: CountingBacklog, now: () => number = Date.now): void {
  gaugeIn(registry, 'pilot_counting_lag_seconds', 'Age of the oldest counting interval closed but not yet folded into the totals', [], async (gauge) => {
    const { interval } = await journal.oldestUnapplied();
    gauge.set(interval === null ? 0 : Math.max(0, now() - interval) / 1000);
  });
  gaugeIn(registry, 'pilot_counting_pending_folds', 'Folds claimed but not yet applied to the totals', [], async (gauge) => {
    gauge.set((await journal.oldestUnapplied()).folds);
  });
}
