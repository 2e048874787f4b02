import { LRUCache } from 'lru-cache';
import type { ReportFigures, ReportQuery, ReportRow } from '../domain/report';

/** A report's rows in the answer's order and the totals of them all, as read at one moment. */
export interface ReportSnapshot {
  rows: ReportRow[];
  totals: ReportFigures;
}

/** How long a report's rows serve its next pages. */
const SNAPSHOT_TTL_MS = 5 * 60_000;
/** The most rows kept in all, the least recently read report's going first (a report above it is not kept). */
const MAX_ROWS = 100_000;

/**
 * The rows of the reports read lately, by reader and question (everything but the page): a first page or
 * a CSV reads the store and keeps its rows; a next page is cut from them. Paging through a report is then
 * consistent (no row twice or missed while figures move) and reads the store once, however many pages.
 * Per replica: a next page that reaches another replica reads the store again, as a first page does.
 */
export class ReportSnapshots {
  private readonly kept = new LRUCache<string, ReportSnapshot>({ maxSize: MAX_ROWS, sizeCalculation: (snapshot) => Math.max(1, snapshot.rows.length), ttl: SNAPSHOT_TTL_MS });

  async of(query: ReportQuery, visibleTo: string | undefined, read: () => Promise<ReportSnapshot>): Promise<ReportSnapshot> {
    const key = JSON.stringify([visibleTo ?? null, query.by, query.sort, query.filter]);
    const kept = query.after === null ? undefined : this.kept.get(key);
    if (kept) return kept;
    const snapshot = await read();
    this.kept.set(key, snapshot);
    return snapshot;
  }
}
