import type { Document } from 'mongodb';

/** For olderThan: every document at the position's value comes after it. */
export const ALL_IDS = Symbol('all ids');

/**
 * The documents after a position in an order by `field` then `_id`, both descending (keyset paging): an
 * index on `field` (after any equality fields) and `_id` reads from the position on, never skipping.
 * `idBelow`: the `_id` bound among the documents whose `field` equals `value` (ALL_IDS: every one of them,
 * null: none of them).
 */
export function olderThan(field: string, value: unknown, idBelow: unknown): Document {
  if (idBelow === null) return { [field]: { $lt: value } };
  const sameValue = idBelow === ALL_IDS ? { [field]: value } : { [field]: value, _id: { $lt: idBelow } };
  return { $or: [{ [field]: { $lt: value } }, sameValue] };
}

/** The documents after a position in an order by `field` then `_id`, both ascending: olderThan's mirror, read on the same indexes backwards. */
export function newerThan(field: string, value: unknown, idAbove: unknown): Document {
  return { $or: [{ [field]: { $gt: value } }, { [field]: value, _id: { $gt: idAbove } }] };
}

const DAY_MS = 86_400_000;

/**
 * The conditions of an audit narrowing on stored entries: the `action`, and `at` within the UTC days
 * `from` to `to` (both included): a range on the `at` of the audit's indexes.
 */
export function auditConditions(narrowing: { action: string | null; from: string | null; to: string | null }): Document {
  const conditions: Document = {};
  if (narrowing.action !== null) conditions.action = narrowing.action;
  const at: Document = {};
  if (narrowing.from !== null) at.$gte = new Date(`${narrowing.from}T00:00:00Z`);
  if (narrowing.to !== null) at.$lt = new Date(Date.parse(`${narrowing.to}T00:00:00Z`) + DAY_MS);
  if (Object.keys(at).length > 0) conditions.at = at;
  return conditions;
}
