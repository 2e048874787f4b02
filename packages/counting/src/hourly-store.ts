/**
 * The hourly figures in MongoDB (docs/counting.md), beside the totals:
 *
 *   totals_hourly  {_id: '<grain>|<YYYY-MM-DD>', grain, day, startsAt: <the day's 00:00 UTC>, lastFold,
 *                  hours: {<HH>: {adRequests?, confirmedDeliveries?, clickedLinks?, unfilledAdRequests?}}}
 *                  index {startsAt: 1} (the retention sweep), {grain: 1, day: 1} (an operator's query)
 *
 * One document per grain and UTC day, written by the folder as the totals are (once per document by
 * `lastFold`, read and replaced by `_id`), kept HOURLY_RETENTION_DAYS after its day (the retention sweep
 * of @pilot/storage). A read is one lookup by `_id` per grain and day of the range (at most 8 days).
 */
import { createDeclaredIndexes, eachLimited, Mixed, modelOf, retentionRule, storedSchema, type Connection, type Model, type RetentionRule } from '@pilot/storage';
import type { Collection } from 'mongodb';
import { isBreakdownGrain } from './breakdown-layout';
import { addHours, HOURLY_RETENTION_DAYS, parseHourField, type HourCounts, type StoredHours } from './hourly-layout';
import { guardedRead, insertAll, readByIds, replaceAll } from './folded-documents';
import type { Fold } from './journal';
import { checkHeld, type FoldGuard } from './folder-lease';


export interface DayHours {
  _id: string;
  grain: string;
  /** YYYY-MM-DD */
  day: string;
  startsAt: Date;
  lastFold: number;
  /** The fencing number of the folder lease under which it was last written. */
  fence?: number;
  hours: HourCounts;
}

const dayHoursSchema = storedSchema<DayHours>({ _id: String, grain: String, day: String, startsAt: Date, lastFold: Number, fence: Number, hours: Mixed }, [[{ startsAt: 1 }], [{ grain: 1, day: 1 }]]);

const DAY_MS = 86_400_000;
const DOCUMENTS_PER_GROUP = 200;
const GROUPS_AT_ONCE = 2;

export function hourlyIdOf(grain: string, day: string): string {
  return `${grain}|${day}`;
}

interface DayParts {
  grain: string;
  day: string;
  parts: Array<{ seq: number; hours: HourCounts }>;
}

/** Splits the folds' hour fields into documents (grain and day), each with its parts fold by fold. */
export function dayPartsOf(folds: Fold[]): Map<string, DayParts> {
  const documents = new Map<string, DayParts>();
  for (const { seq, counts } of [...folds].sort((a, b) => a.seq - b.seq)) {
    for (const [grain, fields] of counts) {
      if (isBreakdownGrain(grain)) continue;
      for (const [field, count] of fields) {
        const parsed = parseHourField(field);
        if (!parsed || count <= 0) continue;
        const id = hourlyIdOf(grain, parsed.day);
        let document = documents.get(id);
        if (!document) documents.set(id, (document = { grain, day: parsed.day, parts: [] }));
        let part = document.parts[document.parts.length - 1];
        if (part?.seq !== seq) document.parts.push((part = { seq, hours: {} }));
        const hour = (part.hours[parsed.hour] ??= {});
        hour[parsed.kind] = (hour[parsed.kind] ?? 0) + count;
      }
    }
  }
  return documents;
}

/** The document with the parts it lacks added, or null when it has them all. Pure. */
export function withHourParts(_id: string, { grain, day, parts }: DayParts, stored: DayHours | null): DayHours | null {
  const lastFold = stored?.lastFold ?? 0;
  const missing = parts.filter((part) => part.seq > lastFold);
  if (missing.length === 0) return null;
  const hours: HourCounts = {};
  addHours(hours, stored?.hours ?? {});
  for (const part of missing) addHours(hours, part.hours);
  return { _id, grain, day, startsAt: new Date(`${day}T00:00:00.000Z`), lastFold: Math.max(...missing.map((part) => part.seq)), hours };
}

export class HourlyStore {
  private readonly model: Model<DayHours>;
  private readonly documents: Collection<DayHours>;

  constructor(
    connection: Connection,
    private readonly timeoutMs: number,
  ) {
    const db = connection.db;
    if (!db) throw new Error('MongoDB is not connected');
    this.model = modelOf(connection, 'totals_hourly', dayHoursSchema);
    this.documents = db.collection<DayHours>(this.model.collection.collectionName);
  }

  async ensureIndexes(): Promise<void> {
    await createDeclaredIndexes(this.model);
  }

  /** The retention of the hourly documents, for the service's RetentionSweeper. */
  retentionRule(): RetentionRule {
    return retentionRule(this.model, ['startsAt'], HOURLY_RETENTION_DAYS * DAY_MS);
  }

  /** The stored hours of these grains on these days (YYYY-MM-DD), by grain: one lookup by `_id` each. */
  async read(grains: string[], days: string[]): Promise<Map<string, StoredHours>> {
    const ids = grains.flatMap((grain) => days.map((day) => hourlyIdOf(grain, day)));
    const found = await guardedRead('hourly read', this.timeoutMs, () => Promise.all(ids.map((_id) => this.documents.findOne({ _id }, { maxTimeMS: this.timeoutMs }))));
    const stored = new Map<string, StoredHours>();
    for (const document of found) {
      if (!document) continue;
      let grain = stored.get(document.grain);
      if (!grain) stored.set(document.grain, (grain = { hours: {}, lastFolds: {} }));
      addHours(grain.hours, document.hours, `${document.day}T`);
      grain.lastFolds[document.day] = document.lastFold;
    }
    return stored;
  }

  /**
   * Adds the hour fields of a batch of folds to their documents, once each (by `lastFold`). A month's
   * backlog holds a document per grain and day (31 for each grain of a chunk): its groups are written two
   * at a time, so the store encodes one while it writes the other.
   */
  async applyFolds(folds: Fold[], guard: FoldGuard): Promise<void> {
    const entries = [...dayPartsOf(folds)];
    const groups: Array<typeof entries> = [];
    for (let start = 0; start < entries.length; start += DOCUMENTS_PER_GROUP) groups.push(entries.slice(start, start + DOCUMENTS_PER_GROUP));
    await eachLimited(groups, GROUPS_AT_ONCE, async (group) => {
      const stored = await readByIds(this.documents, group.map(([_id]) => _id));
      const next = group.map(([_id, parts]) => withHourParts(_id, parts, stored.get(_id) ?? null)).filter((document): document is DayHours => document !== null);
      await checkHeld(guard);
      await replaceAll(
        this.documents,
        next.filter((document) => stored.has(document._id)),
        guard.fence,
      );
      await insertAll(
        this.documents,
        next.filter((document) => !stored.has(document._id)),
        guard.fence,
      );
    });
  }
}
