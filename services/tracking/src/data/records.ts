/**
 * Delivery records on MongoDB (FerretDB in tests). Decision 0002: counting once rests only on inserts
 * against a unique `_id`, never on $inc or conditional updates. One document per measured fact:
 *
 *   records   _id "allocation:<allocationId>"    the ad request (from allocation.created)
 *             _id "confirmation:<allocationId>"  the first confirmed delivery of that allocation
 *             _id "click:<allocationId>"         the first counted click of that allocation's link
 *   filtered_clicks                              redirects not counted (HEAD, preview agents), one per visit
 *
 * Every record carries campaign, publisher and both owners (from the event or the signed token), so the
 * totals are one $match + $group over `records`, and a confirmation or click recorded before its
 * allocation event arrived is complete on its own. Records are attributed to the UTC day of the allocation.
 */
import { randomUUID } from 'node:crypto';
import { ServiceUnavailableError, withDeadline } from '@pilot/faults';
import { GroupedInserts, type Connection } from '@pilot/mongo';
import type { AllocationClaims } from '@pilot/tokens';
import type { Collection, Document, Filter } from 'mongodb';
import { dayOf, type DayKindCount, type RecordKind, type StatsFilter } from '../domain/stats';

export interface AllocationFacts {
  allocationId: string;
  campaignId: number;
  publisherId: number;
  campaignOwnerAccountId: string;
  publisherOwnerAccountId: string;
  allocatedAt: Date;
}

interface RecordDocument {
  _id: string;
  kind: RecordKind;
  allocationId: string;
  campaignId: number;
  publisherId: number;
  campaignOwnerAccountId: string;
  publisherOwnerAccountId: string;
  /** UTC date of the allocation, YYYY-MM-DD. */
  day: string;
  /** When this fact happened. */
  at: Date;
}

interface FilteredClickDocument {
  _id: string;
  allocationId: string;
  campaignId: number;
  publisherId: number;
  reason: string;
  at: Date;
}

export function factsOfClaims(claims: AllocationClaims): AllocationFacts {
  return {
    allocationId: claims.allocationId,
    campaignId: claims.campaignId,
    publisherId: claims.publisherId,
    campaignOwnerAccountId: claims.campaignOwnerAccountId,
    publisherOwnerAccountId: claims.publisherOwnerAccountId,
    allocatedAt: claims.issuedAt,
  };
}

export class TrackingRecords {
  private readonly records: Collection<RecordDocument>;
  private readonly recordInserts: GroupedInserts<RecordDocument>;
  private readonly allocationInserts: GroupedInserts<RecordDocument>;
  private readonly filtered: Collection<FilteredClickDocument>;

  constructor(
    connection: Connection,
    private readonly timeoutMs: number,
  ) {
    if (!connection.db) throw new Error('MongoDB is not connected');
    this.records = connection.db.collection<RecordDocument>('records');
    // Every ad request, confirmation and click is one record: grouped, they cost the database far less.
    // Confirmations and clicks wait 2 ms for company: larger groups, at little cost to their answer.
    this.recordInserts = new GroupedInserts(this.records, { timeoutMs, lingerMs: 2 });
    // Ad request records come from the bus, where nobody waits on them: a batch may gather for 20 ms.
    this.allocationInserts = new GroupedInserts(this.records, { timeoutMs, lingerMs: 20 });
    this.filtered = connection.db.collection<FilteredClickDocument>('filtered_clicks');
  }

  /** Any failure of the database is a fault of infrastructure here: the caller answers 503 or retries. */
  private async guarded<T>(what: string, work: () => Promise<T>): Promise<T> {
    try {
      return await withDeadline(work(), this.timeoutMs, 'mongodb');
    } catch (error) {
      if (error instanceof ServiceUnavailableError) throw error;
      throw new ServiceUnavailableError('mongodb', `${what} failed: ${(error as Error).message}`);
    }
  }

  async ensureIndexes(): Promise<void> {
    await this.records.createIndex({ kind: 1, day: 1 }, { name: 'kind_day' });
    await this.records.createIndex({ campaignOwnerAccountId: 1, day: 1 }, { name: 'campaign_owner_day' });
    await this.records.createIndex({ publisherOwnerAccountId: 1, day: 1 }, { name: 'publisher_owner_day' });
  }

  /** Inserts the record of one fact; true when this call created it, false when it existed already. */
  private async insertOnce(kind: RecordKind, facts: AllocationFacts, at: Date): Promise<boolean> {
    const document: RecordDocument = {
      _id: `${kind}:${facts.allocationId}`,
      kind,
      allocationId: facts.allocationId,
      campaignId: facts.campaignId,
      publisherId: facts.publisherId,
      campaignOwnerAccountId: facts.campaignOwnerAccountId,
      publisherOwnerAccountId: facts.publisherOwnerAccountId,
      day: dayOf(facts.allocatedAt),
      at,
    };
    return (kind === 'allocation' ? this.allocationInserts : this.recordInserts).insert(document);
  }

  recordAllocation(facts: AllocationFacts): Promise<boolean> {
    return this.insertOnce('allocation', facts, facts.allocatedAt);
  }

  recordConfirmation(facts: AllocationFacts, at: Date): Promise<boolean> {
    return this.insertOnce('confirmation', facts, at);
  }

  recordClick(facts: AllocationFacts, at: Date): Promise<boolean> {
    return this.insertOnce('click', facts, at);
  }

  async recordFilteredClick(facts: AllocationFacts, reason: string, at: Date): Promise<void> {
    await this.guarded('insert of a filtered click', () =>
      this.filtered.insertOne({
        _id: randomUUID(),
        allocationId: facts.allocationId,
        campaignId: facts.campaignId,
        publisherId: facts.publisherId,
        reason,
        at,
      }),
    );
  }

  async countFilteredClicks(allocationId?: string): Promise<number> {
    return this.guarded('count of filtered clicks', () => this.filtered.countDocuments(allocationId ? { allocationId } : {}));
  }

  /** Counts per (day, kind) of the records the filter selects. Stages within FerretDB's subset. */
  async countsByDay(filter: StatsFilter): Promise<DayKindCount[]> {
    const match: Filter<RecordDocument> = {};
    if (filter.visibleTo !== undefined) {
      match.$or = [{ campaignOwnerAccountId: filter.visibleTo }, { publisherOwnerAccountId: filter.visibleTo }];
    }
    if (filter.campaignId !== undefined) match.campaignId = filter.campaignId;
    if (filter.publisherId !== undefined) match.publisherId = filter.publisherId;
    if (filter.from !== undefined || filter.to !== undefined) {
      match.day = {};
      if (filter.from !== undefined) match.day.$gte = filter.from;
      if (filter.to !== undefined) match.day.$lte = filter.to;
    }
    const pipeline: Document[] = [
      { $match: match },
      { $group: { _id: { day: '$day', kind: '$kind' }, count: { $sum: 1 } } },
    ];
    const rows = await this.guarded('stats aggregation', () => this.records.aggregate<{ _id: { day: string; kind: string }; count: number }>(pipeline).toArray());
    return rows.map((row) => ({ day: row._id.day, kind: row._id.kind, count: row.count }));
  }
}
