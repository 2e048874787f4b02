/**
 * A viewer's scope-month's *fold marks*: the `lastFold` of its month document and of
 * each through-day document, in one small document the folder writes after them in the same pass, before
 * it marks the batch's folds applied. So a reader learns whether what it keeps of a large document is
 * still what MongoDB holds without reading the document: a fold above a mark is not applied yet, so Redis
 * still holds it. Pure.
 *
 *   breakdown_folds  {_id: '<dimension>|<scope>|<YYYY-MM>' (the month document's), dimension, scope, month,
 *                    lastFold, days: {<YYYY-MM-DD>: lastFold}}
 *
 * On MongoDB a projection `{lastFold: 1}` of the large documents would answer the same; the local store
 * decodes the whole document for a projection, so the marks are kept apart.
 */
import type { BreakdownDimension } from './breakdown-layout';
import type { StoredBreakdown } from './breakdown-periods';

export interface FoldMarks {
  _id: string;
  dimension: BreakdownDimension;
  scope: string;
  month: string;
  /** The month document's. */
  lastFold: number;
  /** Each through-day document's, by its day. */
  days: Record<string, number>;
}

/** A scope-month's marks after a pass: the marks before it, with the documents as they now stand. */
export function marksOf(
  key: Pick<FoldMarks, '_id' | 'dimension' | 'scope' | 'month'>,
  before: FoldMarks | undefined,
  month: StoredBreakdown,
  throughDays: Array<{ day: string; document: StoredBreakdown }>,
): FoldMarks {
  const days = { ...before?.days };
  for (const { day, document } of throughDays) days[day] = Math.max(days[day] ?? 0, document.lastFold);
  return { ...key, lastFold: Math.max(before?.lastFold ?? 0, month.lastFold), days };
}

/** The mark of a document of the month: the month document's (`day` null) or a through-day one's; undefined when none. */
export function markOf(marks: FoldMarks | undefined, day: string | null): number | undefined {
  if (!marks) return undefined;
  return day === null ? marks.lastFold : marks.days[day];
}
