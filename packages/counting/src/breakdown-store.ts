/**
 * The breakdowns in MongoDB (docs/counting.md), beside the totals, in the owning service's database:
 *
 *   breakdowns  {_id: '<dimension>|<scope>|<YYYY-MM or YYYY-MM-DD>', dimension, scope, month, day, lastDay?,
 *               lastFold, items: {<item id>: {adRequests?, confirmedDeliveries?, clickedLinks?,
 *               unfilledAdRequests?}}, campaignOwnerAccountId?, publisherOwnerAccountId?}
 *               index {dimension: 1, scope: 1, month: 1} (for an operator; reads go by `_id`)
 *
 * `day` is null on a month document (the month so far; `lastDay` its last day folded) and a date on a
 * through-day document (the month up to and including that day), which viewers' scopes have; a filter's
 * scope has its month's `days: {<YYYY-MM-DD>: items}` in its month document instead (breakdown-periods.ts).
 * The folder
 * applies a batch of folds to a scope's month as it does to the totals, once per document by `lastFold`:
 * it writes the through-day documents from the batch's first day to the month's last folded day first,
 * then the month document, so a pass cut short leaves every document either as it was or complete, and
 * the through-day documents contiguous up to the month document's `lastDay`. Reads and writes go by `_id`
 * (replace or insert, never `$inc`), as for the totals. After a viewer's scope-month's documents it writes
 * their fold marks (breakdown-marks.ts), which let a reader use the documents it keeps decoded
 * (breakdown-cache.ts) without reading them again.
 */
import { systemClock, type Clock } from '@pilot/platform';
import { createDeclaredIndexes, Mixed, modelOf, storedSchema, type Connection, type Model } from '@pilot/storage';
import type { Collection } from 'mongodb';
import { BreakdownCache, DEFAULT_BREAKDOWN_CACHE_BYTES } from './breakdown-cache';
import { isViewerScope, parseBreakdownField, parseBreakdownGrain, type BreakdownDimension } from './breakdown-layout';
import { markOf, marksOf, type FoldMarks } from './breakdown-marks';
import { addItems, breakdownIdOf, daysBetween, throughDayIdsToRead, sidesOf, type BreakdownSide, type ItemCounts, type StoredBreakdown } from './breakdown-periods';
import { guardedRead, insertAll, readByIds, replaceAll } from './folded-documents';
import type { Fold } from './journal';
import { subjectsOf } from './layout';
import { monthsToRead, type DayRange } from './months';
import { checkHeld, type FoldGuard } from './folder-lease';
import type { KeptFolds } from './unfolded';

export interface BreakdownDocument extends StoredBreakdown {
  /** The fencing number of the folder lease under which it was last written. */
  fence?: number;
  _id: string;
  dimension: BreakdownDimension;
  scope: string;
  month: string;
  /** Null on a month document; the last day it covers on a through-day document. */
  day: string | null;
  campaignOwnerAccountId?: string;
  publisherOwnerAccountId?: string;
}

const breakdownSchema = storedSchema<BreakdownDocument>(
  {
    _id: String,
    dimension: String,
    scope: String,
    month: String,
    day: String,
    lastDay: String,
    lastFold: Number,
    fence: Number,
    items: Mixed,
    days: Mixed,
    campaignOwnerAccountId: String,
    publisherOwnerAccountId: String,
  },
  [[{ dimension: 1, scope: 1, month: 1 }]],
);

/** Scope-months written per lease check. */
const MONTHS_PER_GROUP = 50;
const ITEMS_PER_INSERT = 5_000;

/** One scope-month's part of a batch: its per-day, per-item counts fold by fold. */
interface MonthParts {
  dimension: BreakdownDimension;
  scope: string;
  month: string;
  parts: Array<{ seq: number; days: Record<string, ItemCounts> }>;
}

/** Splits the folds' breakdown grains into scope-months, each with its parts fold by fold. */
export function monthPartsOf(folds: Fold[]): Map<string, MonthParts> {
  const months = new Map<string, MonthParts>();
  for (const { seq, counts } of [...folds].sort((a, b) => a.seq - b.seq)) {
    for (const [grain, fields] of counts) {
      const breakdown = parseBreakdownGrain(grain);
      if (!breakdown) continue;
      for (const [field, count] of fields) {
        const parsed = parseBreakdownField(field);
        if (!parsed || count <= 0) continue;
        const month = parsed.day.slice(0, 7);
        const key = breakdownIdOf(breakdown.dimension, breakdown.scope, month);
        let entry = months.get(key);
        if (!entry) months.set(key, (entry = { ...breakdown, month, parts: [] }));
        let part = entry.parts[entry.parts.length - 1];
        if (part?.seq !== seq) entry.parts.push((part = { seq, days: {} }));
        const item = ((part.days[parsed.day] ??= {})[parsed.itemId] ??= {});
        item[parsed.kind] = (item[parsed.kind] ?? 0) + count;
      }
    }
  }
  return months;
}

/**
 * The documents a scope-month's parts change: the through-day ones from its first day to the month's
 * last folded day (a new one starts from the month document when after its `lastDay`, else from
 * nothing), then the month document; each gets the parts above its `lastFold`. Pure.
 */
export function foldedDocumentsOf(entry: MonthParts, stored: Map<string, BreakdownDocument>, owners: Map<string, string>): { throughDays: BreakdownDocument[]; month: BreakdownDocument | null } {
  const { dimension, scope, month, parts } = entry;
  const partDays = parts.flatMap((part) => Object.keys(part.days)).sort();
  const monthId = breakdownIdOf(dimension, scope, month);
  const monthStored = stored.get(monthId);
  const lastDay = [partDays[partDays.length - 1]!, monthStored?.lastDay ?? ''].sort()[1]!;
  const ownerFields = ownerFieldsOf(scope, owners, monthStored);
  const keepsDays = !isViewerScope(scope);
  const next = (base: StoredBreakdown | undefined, id: string, day: string | null, throughDay: string): BreakdownDocument | null => {
    const lastFold = base?.lastFold ?? 0;
    const missing = parts.filter((part) => part.seq > lastFold);
    const items: ItemCounts = {};
    addItems(items, base?.items ?? {});
    const days = keepsDays ? copyDays(base?.days ?? {}) : undefined;
    let changed = false;
    for (const part of missing) {
      for (const [partDay, dayItems] of Object.entries(part.days)) {
        if (partDay > throughDay) continue;
        addItems(items, dayItems);
        if (days) addItems((days[partDay] ??= {}), dayItems);
        changed = true;
      }
    }
    const isNew = !stored.has(id);
    if (!changed && !isNew && (day !== null || monthStored?.lastDay === lastDay)) return null;
    const document: BreakdownDocument = { _id: id, dimension, scope, month, day, lastFold: Math.max(lastFold, ...missing.map((part) => part.seq)), items, ...ownerFields };
    if (day === null) document.lastDay = lastDay;
    if (days) document.days = days;
    return document;
  };
  const throughDays: BreakdownDocument[] = [];
  for (const day of keepsDays ? [] : daysBetween(partDays[0]!, lastDay)) {
    const id = breakdownIdOf(dimension, scope, day);
    const base = stored.get(id) ?? (monthStored?.lastDay !== undefined && monthStored.lastDay < day ? monthStored : undefined);
    const document = next(base, id, day, day);
    if (document) throughDays.push(document);
  }
  return { throughDays, month: next(monthStored, monthId, null, `${month}-31`) };
}

function copyDays(days: Record<string, ItemCounts>): Record<string, ItemCounts> {
  const copy: Record<string, ItemCounts> = {};
  for (const [day, items] of Object.entries(days)) addItems((copy[day] = {}), items);
  return copy;
}

/** The owner of the campaign or platform a scope names, kept on its documents for the readers' plan. */
function ownerFieldsOf(scope: string, owners: Map<string, string>, stored: BreakdownDocument | undefined): Partial<BreakdownDocument> {
  const { campaignId, publisherId } = subjectsOf(scope);
  const fields: Partial<BreakdownDocument> = {};
  const campaignOwner = stored?.campaignOwnerAccountId ?? (campaignId === undefined ? undefined : owners.get(`c:${campaignId}`));
  const publisherOwner = stored?.publisherOwnerAccountId ?? (publisherId === undefined ? undefined : owners.get(`p:${publisherId}`));
  if (campaignOwner) fields.campaignOwnerAccountId = campaignOwner;
  if (publisherOwner) fields.publisherOwnerAccountId = publisherOwner;
  return fields;
}

/**
 * New documents in insert commands of at most ITEMS_PER_INSERT items between them: a viewer's document
 * of the whole network holds an item per campaign, and one command of dozens of them outlasts a deadline.
 */
function insertBatchesOf(documents: BreakdownDocument[]): BreakdownDocument[][] {
  const batches: BreakdownDocument[][] = [];
  let batch: BreakdownDocument[] = [];
  let items = 0;
  for (const document of documents) {
    const size = Object.keys(document.items).length + Object.values(document.days ?? {}).reduce((sum, day) => sum + Object.keys(day).length, 0);
    if (batch.length > 0 && items + size > ITEMS_PER_INSERT) {
      batches.push(batch);
      batch = [];
      items = 0;
    }
    batch.push(document);
    items += size;
  }
  if (batch.length > 0) batches.push(batch);
  return batches;
}

/** What a breakdown read found in MongoDB (or kept of it) for one scope: the sides of its months and the owners its documents name. */
export interface StoredScope {
  sides: BreakdownSide[];
  campaignOwnerAccountId?: string;
  publisherOwnerAccountId?: string;
  /** Documents read (found or not), kept ones included. */
  documentsRead: number;
  /** Of those, the ones taken from the kept documents. */
  documentsKept: number;
  /**
   * The lowest `lastFold` of a side taken from a kept document that MongoDB may hold a later fold of
   * (null: none): the read is exact only if Redis still holds every fold above it (`coveredBy`).
   */
  reliesOnFoldsAbove: number | null;
}

/** True when the folds Redis keeps are all those each scope's kept sides rely on (those above their `lastFold`). */
export function coveredBy(stored: Map<string, StoredScope>, kept: KeptFolds): boolean {
  return [...stored.values()].every(({ reliesOnFoldsAbove: from }) => from === null || (from >= kept.above && from <= kept.through));
}

export interface BreakdownStoreOptions {
  /** Bytes of decoded viewers' documents kept for readers (0: none); DEFAULT_BREAKDOWN_CACHE_BYTES by default. */
  cacheBytes?: number;
  /** A kept document this old (ms) that MongoDB holds a later fold of is read again in the background. */
  refreshAfterMs?: number;
  clock?: Clock;
}

export interface BreakdownReadOptions {
  /**
   * Whether a kept document MongoDB may hold a later fold of answers (its side relies on Redis' folds
   * above it); false after a read that Redis did not cover, so that the second read is exact.
   */
  unconfirmed?: boolean;
}

/** A document a read wants: its `_id`, scope, and day (null: the month document). */
interface Wanted {
  id: string;
  scope: string;
  month: string;
  day: string | null;
}

/**
 * A kept document read again well before Redis lets go of the folds its side relies on (applied folds are
 * kept 30 s, COUNT_FOLDING), so that a reader never waits for it.
 */
const REFRESH_AFTER_MS = 10_000;

export class BreakdownStore {
  private readonly model: Model<BreakdownDocument>;
  private readonly breakdowns: Collection<BreakdownDocument>;
  private readonly marks: Collection<FoldMarks>;
  private readonly cache: BreakdownCache;
  private readonly refreshAfterMs: number;
  private readonly clock: Clock;
  private readonly refreshing = new Map<string, Promise<void>>();

  constructor(
    connection: Connection,
    private readonly timeoutMs: number,
    options: BreakdownStoreOptions = {},
  ) {
    const db = connection.db;
    if (!db) throw new Error('MongoDB is not connected');
    this.model = modelOf(connection, 'breakdowns', breakdownSchema);
    this.breakdowns = db.collection<BreakdownDocument>(this.model.collection.collectionName);
    this.marks = db.collection<FoldMarks>('breakdown_folds');
    this.cache = new BreakdownCache(options.cacheBytes ?? DEFAULT_BREAKDOWN_CACHE_BYTES);
    this.refreshAfterMs = options.refreshAfterMs ?? REFRESH_AFTER_MS;
    this.clock = options.clock ?? systemClock;
  }

  async ensureIndexes(): Promise<void> {
    await createDeclaredIndexes(this.model);
  }

  /** What the kept documents take (bytes as reckoned) and how many there are. */
  cacheUsage(): { bytes: number; entries: number } {
    return this.cache.usage();
  }

  /** Settles once the background reads started so far have (tests, a bench). */
  async refreshed(): Promise<void> {
    await Promise.all(this.refreshing.values());
  }

  /**
   * The stored sides of each scope over `range` at `now` (months from `firstMonth`, the folder state's).
   * The fold marks of viewers' scope-months first, then the month documents, then the through-day ones
   * where a range cuts a month: each kept one whose `lastFold` is at or above its mark, else (when
   * `unconfirmed`) kept ones relying on Redis, else read from MongoDB.
   */
  async read(dimension: BreakdownDimension, scopes: string[], range: DayRange, firstMonth: string | null, now: Date, options: BreakdownReadOptions = {}): Promise<Map<string, StoredScope>> {
    const months = monthsToRead(range, firstMonth, now);
    const found = new Map<string, StoredBreakdown>();
    const readDocuments: BreakdownDocument[] = [];
    const kept = new Map<string, number>();
    const relied = new Map<string, number>();
    const pairs = scopes.flatMap((scope) => months.map((month) => ({ scope, month, id: breakdownIdOf(dimension, scope, month) })));
    const marks = this.cache.maxBytes > 0 ? await guardedRead('breakdown marks read', this.timeoutMs, () => readByIds(this.marks, pairs.filter(({ scope }) => isViewerScope(scope)).map(({ id }) => id))) : new Map<string, FoldMarks>();
    const take = async (wanted: Wanted[]) => {
      const toRead: string[] = [];
      for (const { id, scope, month, day } of wanted) {
        const entry = isViewerScope(scope) ? this.cache.get(id) : undefined;
        const mark = markOf(marks.get(breakdownIdOf(dimension, scope, month)), day);
        const confirmed = entry !== undefined && mark !== undefined && entry.lastFold >= mark;
        if (!entry || !(confirmed || options.unconfirmed !== false)) {
          toRead.push(id);
          continue;
        }
        found.set(id, entry);
        kept.set(scope, (kept.get(scope) ?? 0) + 1);
        if (confirmed) continue;
        relied.set(scope, Math.min(relied.get(scope) ?? entry.lastFold, entry.lastFold));
        this.refreshLater(id, entry.loadedAt);
      }
      const documents = await guardedRead('breakdown read', this.timeoutMs, () => Promise.all(toRead.map((_id) => this.breakdowns.findOne({ _id }, { maxTimeMS: this.timeoutMs }))));
      const at = this.clock.now().getTime();
      for (const document of documents) {
        if (!document) continue;
        found.set(document._id, document);
        readDocuments.push(document);
        if (isViewerScope(document.scope)) this.cache.keep(document._id, document, at);
      }
    };
    await take(pairs.map(({ scope, month, id }) => ({ id, scope, month, day: null })));
    const cuts = pairs.map(({ scope, month, id }) => ({ scope, month, ids: throughDayIdsToRead(dimension, scope, month, range, found.get(id)) }));
    await take(cuts.flatMap(({ scope, month, ids }) => ids.map((id) => ({ id, scope, month, day: id.slice(id.lastIndexOf('|') + 1) }))));
    const result = new Map<string, StoredScope>();
    for (const scope of scopes) {
      const documents = readDocuments.filter((document) => document.scope === scope);
      result.set(scope, {
        sides: months.flatMap((month) => sidesOf(dimension, scope, month, range, found)),
        campaignOwnerAccountId: documents.find((document) => document.campaignOwnerAccountId)?.campaignOwnerAccountId,
        publisherOwnerAccountId: documents.find((document) => document.publisherOwnerAccountId)?.publisherOwnerAccountId,
        documentsRead: months.length + cuts.filter((cut) => cut.scope === scope).reduce((sum, cut) => sum + cut.ids.length, 0),
        documentsKept: kept.get(scope) ?? 0,
        reliesOnFoldsAbove: relied.get(scope) ?? null,
      });
    }
    return result;
  }

  /** Reads a kept document again in the background once it is `refreshAfterMs` old, one read per document at a time. */
  private refreshLater(id: string, loadedAt: number): void {
    if (this.refreshing.has(id) || this.clock.now().getTime() - loadedAt < this.refreshAfterMs) return;
    const refresh = this.breakdowns
      .findOne({ _id: id }, { maxTimeMS: this.timeoutMs })
      .then((document) => {
        if (document) this.cache.keep(id, document, this.clock.now().getTime());
      })
      // A reader that finds the document too old reads it itself; nothing waits for this one.
      .catch(() => undefined)
      .finally(() => this.refreshing.delete(id));
    this.refreshing.set(id, refresh);
  }

  /**
   * Adds the breakdown grains of a batch of folds to their documents, once each (by `lastFold`). The
   * caller has covered the batch in the folder state first (TotalsStore.coverBatch).
   */
  async applyFolds(folds: Fold[], owners: Map<string, string>, guard: FoldGuard): Promise<void> {
    const entries = [...monthPartsOf(folds).values()];
    for (let start = 0; start < entries.length; start += MONTHS_PER_GROUP) await this.writeGroup(entries.slice(start, start + MONTHS_PER_GROUP), owners, guard);
  }

  /**
   * Reads the group's month documents and fold marks, then the through-day documents it needs, then
   * writes those before the month ones, and the marks last.
   */
  private async writeGroup(group: MonthParts[], owners: Map<string, string>, guard: FoldGuard): Promise<void> {
    const monthIds = group.map(({ dimension, scope, month }) => breakdownIdOf(dimension, scope, month));
    const stored = await readByIds(this.breakdowns, monthIds);
    const marksBefore = await readByIds(this.marks, monthIds.filter((_id, index) => isViewerScope(group[index]!.scope)));
    const daysOfEntries = group.map(({ dimension, scope, month, parts }) => {
      if (!isViewerScope(scope)) return [];
      const days = parts.flatMap((part) => Object.keys(part.days)).sort();
      const lastDay = [days[days.length - 1]!, stored.get(breakdownIdOf(dimension, scope, month))?.lastDay ?? ''].sort()[1]!;
      return daysBetween(days[0]!, lastDay);
    });
    await readByIds(
      this.breakdowns,
      group.flatMap(({ dimension, scope }, index) => daysOfEntries[index]!.map((day) => breakdownIdOf(dimension, scope, day))),
      stored,
    );
    const folded = group.map((entry) => foldedDocumentsOf(entry, stored, owners));
    await checkHeld(guard);
    await this.write(folded.flatMap((documents) => documents.throughDays), stored, guard.fence);
    await this.write(folded.flatMap((documents) => (documents.month ? [documents.month] : [])), stored, guard.fence);
    const marks = group.flatMap(({ dimension, scope, month }, index) => {
      if (!isViewerScope(scope)) return [];
      const current = (id: string) => [folded[index]!.month, ...folded[index]!.throughDays].find((document) => document?._id === id) ?? stored.get(id);
      const monthDocument = current(monthIds[index]!);
      if (!monthDocument) return [];
      const throughDays = daysOfEntries[index]!.flatMap((day) => {
        const document = current(breakdownIdOf(dimension, scope, day));
        return document ? [{ day, document }] : [];
      });
      return [marksOf({ _id: monthIds[index]!, dimension, scope, month }, marksBefore.get(monthIds[index]!), monthDocument, throughDays)];
    });
    await replaceAll(this.marks, marks, guard.fence, true);
  }

  private async write(documents: BreakdownDocument[], stored: Map<string, BreakdownDocument>, fence: number): Promise<void> {
    const inserted = documents.filter((document) => !stored.has(document._id));
    await replaceAll(
      this.breakdowns,
      documents.filter((document) => stored.has(document._id)),
      fence,
    );
    // As for the totals: a document that appeared meanwhile fails the pass, and the next adds only what it lacks.
    for (const batch of insertBatchesOf(inserted)) await insertAll(this.breakdowns, batch, fence);
    // A document a reader keeps is kept as written: with the marks written next, the reader reads it no more.
    const at = this.clock.now().getTime();
    for (const document of documents) if (isViewerScope(document.scope)) this.cache.keepIfKept(document._id, document, at);
  }
}
