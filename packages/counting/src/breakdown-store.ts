/**
 * The breakdowns in MongoDB (docs/decisions/0037), beside the totals, in the owning service's database:
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
 * (replace or insert, never `$inc`), as for the totals.
 */
import { createDeclaredIndexes, Mixed, modelOf, storedSchema, type Connection, type Model } from '@pilot/mongo';
import type { Collection } from 'mongodb';
import { isViewerScope, parseBreakdownField, parseBreakdownGrain, type BreakdownDimension } from './breakdown-layout';
import { addItems, breakdownIdOf, daysBetween, throughDayIdsToRead, sidesOf, type BreakdownSide, type ItemCounts, type StoredBreakdown } from './breakdown-periods';
import { guardedRead, readByIds, replaceAll } from './folded-documents';
import type { Fold } from './journal';
import { subjectsOf } from './layout';
import { monthsToRead, type DayRange } from './months';
import { FoldingInterruptedError } from './totals-store';

export interface BreakdownDocument extends StoredBreakdown {
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

/** What a breakdown read found in MongoDB for one scope: the sides of its months and the owners its documents name. */
export interface StoredScope {
  sides: BreakdownSide[];
  campaignOwnerAccountId?: string;
  publisherOwnerAccountId?: string;
  /** Documents read (found or not). */
  documentsRead: number;
}

export class BreakdownStore {
  private readonly model: Model<BreakdownDocument>;
  private readonly breakdowns: Collection<BreakdownDocument>;

  constructor(
    connection: Connection,
    private readonly timeoutMs: number,
  ) {
    const db = connection.db;
    if (!db) throw new Error('MongoDB is not connected');
    this.model = modelOf(connection, 'breakdowns', breakdownSchema);
    this.breakdowns = db.collection<BreakdownDocument>(this.model.collection.collectionName);
  }

  async ensureIndexes(): Promise<void> {
    await createDeclaredIndexes(this.model);
  }

  /** The stored sides of each scope over `range` at `now` (months from `firstMonth`, the folder state's). */
  async read(dimension: BreakdownDimension, scopes: string[], range: DayRange, firstMonth: string | null, now: Date): Promise<Map<string, StoredScope>> {
    const months = monthsToRead(range, firstMonth, now);
    const found = new Map<string, BreakdownDocument>();
    const readByIds = async (ids: string[]) => {
      const documents = await guardedRead('breakdown read', this.timeoutMs, () => Promise.all(ids.map((_id) => this.breakdowns.findOne({ _id }, { maxTimeMS: this.timeoutMs }))));
      for (const document of documents) if (document) found.set(document._id, document);
    };
    const pairs = scopes.flatMap((scope) => months.map((month) => ({ scope, month, id: breakdownIdOf(dimension, scope, month) })));
    await readByIds(pairs.map(({ id }) => id));
    const cuts = pairs.map(({ scope, month, id }) => ({ scope, ids: throughDayIdsToRead(dimension, scope, month, range, found.get(id)) }));
    await readByIds(cuts.flatMap(({ ids }) => ids));
    const result = new Map<string, StoredScope>();
    for (const scope of scopes) {
      const documents = [...found.values()].filter((document) => document.scope === scope);
      result.set(scope, {
        sides: months.flatMap((month) => sidesOf(dimension, scope, month, range, found)),
        campaignOwnerAccountId: documents.find((document) => document.campaignOwnerAccountId)?.campaignOwnerAccountId,
        publisherOwnerAccountId: documents.find((document) => document.publisherOwnerAccountId)?.publisherOwnerAccountId,
        documentsRead: months.length + cuts.filter((cut) => cut.scope === scope).reduce((sum, cut) => sum + cut.ids.length, 0),
      });
    }
    return result;
  }

  /**
   * Adds the breakdown grains of a batch of folds to their documents, once each (by `lastFold`). The
   * caller has covered the batch in the folder state first (TotalsStore.coverBatch).
   */
  async applyFolds(folds: Fold[], owners: Map<string, string>, stillHeld?: () => Promise<boolean>): Promise<void> {
    const entries = [...monthPartsOf(folds).values()];
    for (let start = 0; start < entries.length; start += MONTHS_PER_GROUP) {
      if (start > 0 && stillHeld && !(await stillHeld())) throw new FoldingInterruptedError();
      await this.writeGroup(entries.slice(start, start + MONTHS_PER_GROUP), owners);
    }
  }

  /** Reads the group's month documents, then the through-day documents it needs, then writes those before the month ones. */
  private async writeGroup(group: MonthParts[], owners: Map<string, string>): Promise<void> {
    const stored = await readByIds(
      this.breakdowns,
      group.map(({ dimension, scope, month }) => breakdownIdOf(dimension, scope, month)),
    );
    const dayIds = group.flatMap(({ dimension, scope, month, parts }) => {
      if (!isViewerScope(scope)) return [];
      const days = parts.flatMap((part) => Object.keys(part.days)).sort();
      const lastDay = [days[days.length - 1]!, stored.get(breakdownIdOf(dimension, scope, month))?.lastDay ?? ''].sort()[1]!;
      return daysBetween(days[0]!, lastDay).map((day) => breakdownIdOf(dimension, scope, day));
    });
    await readByIds(this.breakdowns, dayIds, stored);
    const folded = group.map((entry) => foldedDocumentsOf(entry, stored, owners));
    await this.write(folded.flatMap((documents) => documents.throughDays), stored);
    await this.write(folded.flatMap((documents) => (documents.month ? [documents.month] : [])), stored);
  }

  private async write(documents: BreakdownDocument[], stored: Map<string, BreakdownDocument>): Promise<void> {
    const inserted = documents.filter((document) => !stored.has(document._id));
    await replaceAll(
      this.breakdowns,
      documents.filter((document) => stored.has(document._id)),
    );
    // As for the totals: a document that appeared meanwhile fails the pass, and the next adds only what it lacks.
    for (const batch of insertBatchesOf(inserted)) await this.breakdowns.insertMany(batch, { ordered: true });
  }

}
