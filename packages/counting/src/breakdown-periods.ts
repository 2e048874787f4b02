/**
 * Which breakdown documents answer a range, and how they and what Redis holds add up. Pure.
 *
 * A scope and dimension has, per UTC month, a *month document* (the month's per-item totals so far, and
 * `lastDay`, the latest day folded). A viewer's scope has besides a *through-day document* for every day
 * from the month's first folded day to `lastDay` (the month's totals up to and including that day). So a
 * viewer's range reads at most three documents a month, whatever its days and items: a month it covers
 * whole is its month document; a month it cuts is the totals through its last day in the month minus
 * those through the day before its first. A filter's scope (one campaign's platforms, one platform's
 * campaigns) keeps its per-day items in its month document, which answers any range of the month alone.
 */
import { isViewerScope, parseBreakdownField, type BreakdownDimension } from './breakdown-layout';
import type { DayRange } from './months';

/** Per item id, per kind, a count. */
export type ItemCounts = Record<string, Record<string, number>>;

/** What a breakdown document holds that a read needs. */
export interface StoredBreakdown {
  /** The month's last day folded (month documents only). */
  lastDay?: string;
  lastFold: number;
  items: ItemCounts;
  /** The month's items per day (month documents of a filter's scope only). */
  days?: Record<string, ItemCounts>;
}

/** One term of a month's sum: the totals of the month through `throughDay`, as stored as of `lastFold`. */
export interface BreakdownSide {
  sign: 1 | -1;
  month: string;
  throughDay: string;
  lastFold: number;
  items: ItemCounts;
}

export function breakdownIdOf(dimension: BreakdownDimension, scope: string, period: string): string {
  return `${dimension}|${scope}|${period}`;
}

const DAY_MS = 86_400_000;

function shiftDay(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00.000Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** The last day of a month (YYYY-MM). */
export function lastDayOf(month: string): string {
  return shiftDay(`${shiftDay(`${month}-28`, 4).slice(0, 7)}-01`, -1);
}

/** The days from `first` to `last`, inclusive. */
export function daysBetween(first: string, last: string): string[] {
  const days: string[] = [];
  for (let day = first; day <= last; day = shiftDay(day, 1)) days.push(day);
  return days;
}

/** Where a range ends in a month (null: at its end) and the day before it starts there (null: from its start). */
export function cutsOf(month: string, range: DayRange): { end: string | null; before: string | null } {
  const end = range.to !== undefined && range.to < lastDayOf(month) && range.to.startsWith(month) ? range.to : null;
  const before = range.from !== undefined && range.from > `${month}-01` && range.from.startsWith(month) ? shiftDay(range.from, -1) : null;
  return { end, before };
}

/**
 * The through-day documents a read of `range` needs in `month` besides its month document (read first):
 * those of the days where the range cuts the month, before the month's last folded day (from that day on,
 * the month document holds the same). None for a filter's scope, or a month with nothing folded.
 */
export function throughDayIdsToRead(dimension: BreakdownDimension, scope: string, month: string, range: DayRange, monthDocument: StoredBreakdown | undefined): string[] {
  const lastDay = monthDocument?.lastDay;
  if (!isViewerScope(scope) || monthDocument?.days || lastDay === undefined) return [];
  const { end, before } = cutsOf(month, range);
  return [end, before].filter((day): day is string => day !== null && day < lastDay).map((day) => breakdownIdOf(dimension, scope, day));
}

const NOTHING: StoredBreakdown = { lastFold: 0, items: {} };

/**
 * The sides of a month: the stored totals through `day` are its through-day document, else (a day after
 * the last folded) the month document, else (a day before the first folded) nothing.
 */
export function sidesOf(dimension: BreakdownDimension, scope: string, month: string, range: DayRange, found: Map<string, StoredBreakdown>): BreakdownSide[] {
  const monthDocument = found.get(breakdownIdOf(dimension, scope, month));
  const through = (day: string): StoredBreakdown =>
    monthDocument?.days
      ? { lastFold: monthDocument.lastFold, items: itemsThrough(monthDocument.days, day) }
      : (found.get(breakdownIdOf(dimension, scope, day)) ?? (monthDocument?.lastDay !== undefined && monthDocument.lastDay <= day ? monthDocument : NOTHING));
  const { end, before } = cutsOf(month, range);
  const endStored = end === null ? (monthDocument ?? NOTHING) : through(end);
  const sides: BreakdownSide[] = [{ sign: 1, month, throughDay: end ?? lastDayOf(month), lastFold: endStored.lastFold, items: endStored.items }];
  if (before !== null) {
    const stored = through(before);
    sides.push({ sign: -1, month, throughDay: before, lastFold: stored.lastFold, items: stored.items });
  }
  return sides;
}

/** Counts of a breakdown grain in Redis: 0 for an open interval, else the fold's number. */
export interface BreakdownPart {
  fold: number;
  fields: Map<string, number>;
}

/** The items of the days up to and including `day`. */
function itemsThrough(days: Record<string, ItemCounts>, day: string): ItemCounts {
  const items: ItemCounts = {};
  for (const [date, dayItems] of Object.entries(days)) if (date <= day) addItems(items, dayItems);
  return items;
}

export function addItems(into: ItemCounts, items: ItemCounts): void {
  for (const [itemId, counts] of Object.entries(items)) for (const [kind, count] of Object.entries(counts)) add(into, itemId, kind, count);
}

function add(into: ItemCounts, itemId: string, kind: string, count: number): void {
  const item = (into[itemId] ??= {});
  item[kind] = (item[kind] ?? 0) + count;
}

/**
 * The per-item counts over `range`: the sides of the months read, each with the counts in Redis its
 * document had not folded (an open interval, or a fold above its `lastFold`), plus Redis' counts of days
 * in the range in months that have no side (nothing folded there yet).
 */
export function sumBreakdown(sides: BreakdownSide[], parts: BreakdownPart[], range: DayRange): ItemCounts {
  const sums: ItemCounts = {};
  const monthsWithSides = new Set(sides.map((side) => side.month));
  for (const side of sides) {
    for (const [itemId, counts] of Object.entries(side.items)) for (const [kind, count] of Object.entries(counts)) add(sums, itemId, kind, side.sign * count);
  }
  for (const part of parts) {
    for (const [field, count] of part.fields) {
      const parsed = parseBreakdownField(field);
      if (!parsed) continue;
      const month = parsed.day.slice(0, 7);
      if (!monthsWithSides.has(month)) {
        if ((range.from === undefined || parsed.day >= range.from) && (range.to === undefined || parsed.day <= range.to)) add(sums, parsed.itemId, parsed.kind, count);
        continue;
      }
      for (const side of sides) {
        if (side.month === month && parsed.day <= side.throughDay && part.fold > side.lastFold) add(sums, parsed.itemId, parsed.kind, side.sign * count);
      }
    }
  }
  return sums;
}
