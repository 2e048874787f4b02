/**
 * Gauges of work waiting, read at scrape time from where it waits (read-only: a scrape changes nothing).
 * Structural types keep http-kit free of the outbox's and the counting pipeline's packages.
 */
import type { Registry } from 'prom-client';
import { gaugeIn } from './metric-helpers';

/** A marker collection of an outbox (`<history>_pending`): one document per entry whose events wait. */
export interface PendingMarkers {
  collectionName: string;
  countDocuments(): Promise<number>;
}

/** `pilot_outbox_pending_entries{collection}`: entries whose events are not yet on the bus. */
export function registerOutboxBacklog(registry: Registry, queues: () => { pending: PendingMarkers }[]): void {
  gaugeIn(registry, 'pilot_outbox_pending_entries', 'Outbox entries whose events are not yet on the bus, by marker collection', ['collection'], async (gauge) => {
    for (const { pending } of queues()) gauge.set({ collection: pending.collectionName }, await pending.countDocuments());
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
