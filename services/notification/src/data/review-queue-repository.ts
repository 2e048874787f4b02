/**
 * The administrators' review-queue summary:
 * - `notification_review_queue`: one document per campaign or platform (`campaign:<id>`,
 *   `publisher:<id>`) with whether it waits for review after its newest event seen; counted on `waiting`.
 * - `notification_queue_summaries`: one document per administrator and interval (`<account>:<n>`, n the
 *   number of the interval since the epoch), taken by an exclusive insert: at most one summary each.
 */
import { claimOnce, createDeclaredIndexes, isDuplicateKeyError, modelOf, retentionRule, storedSchema, type Connection, type Model, type RetentionRule } from '@pilot/storage';

interface QueueRecordDocument {
  _id: string;
  waiting: boolean;
  version: number;
  at: Date;
}

interface SummaryDocument {
  _id: string;
  accountId: string;
  eventId: string;
  at: Date;
}

const queueRecordSchema = storedSchema<QueueRecordDocument>(
  {
    _id: { type: String, required: true },
    waiting: { type: Boolean, required: true },
    version: { type: Number, required: true },
    at: { type: Date, required: true },
  },
  [[{ waiting: 1 }]],
);

const summarySchema = storedSchema<SummaryDocument>(
  {
    _id: { type: String, required: true },
    accountId: { type: String, required: true },
    eventId: { type: String, required: true },
    at: { type: Date, required: true },
  },
  [[{ at: 1 }]],
);

export class ReviewQueueRepository {
  private readonly records: Model<QueueRecordDocument>;
  private readonly summaries: Model<SummaryDocument>;

  constructor(connection: Connection) {
    this.records = modelOf(connection, 'notification_review_queue', queueRecordSchema);
    this.summaries = modelOf(connection, 'notification_queue_summaries', summarySchema);
  }

  async ensureIndexes(): Promise<void> {
    await createDeclaredIndexes(this.records, this.summaries);
  }

  retentionRules(keepMs: number): RetentionRule[] {
    return [retentionRule(this.summaries, ['at'], keepMs)];
  }

  /**
   * Whether the record waits for review after the event of `version`: one upsert guarded by the version, so
   * an event older than (or as old as) the one kept changes nothing, whichever replica handles it when.
   * The upsert of a guard that does not match tries to insert the kept `_id` and fails on it (E11000): the
   * kept version is newer. It also fails so when two upserts of a new record insert at once; the second try
   * then finds the first one's document.
   */
  async observe(recordKey: string, waiting: boolean, version: number, at: Date): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.records.updateOne({ _id: recordKey, version: { $lt: version } }, { $set: { waiting, version, at } }, { upsert: true });
        return;
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error;
        if (attempt === 2) return; // the kept version is as new or newer
      }
    }
  }

  async waitingCount(): Promise<number> {
    return this.records.countDocuments({ waiting: true });
  }

  /**
   * Takes interval `interval` for `accountId`'s summary on behalf of event `eventId`: true when taken now or
   * earlier by the same event (a redelivery), false when another event has it or the previous interval's
   * summary is less than `intervalMs` old.
   */
  async claimSummary(accountId: string, eventId: string, interval: number, intervalMs: number, now: Date): Promise<boolean> {
    const id = `${accountId}:${interval}`;
    const taken = await this.summaries.findById(id).lean<SummaryDocument>();
    if (taken) return taken.eventId === eventId;
    const previous = await this.summaries.findById(`${accountId}:${interval - 1}`).lean<SummaryDocument>();
    if (previous && now.getTime() - previous.at.getTime() < intervalMs) return false;
    if (await claimOnce(this.summaries, id, { accountId, eventId, at: now })) return true;
    return (await this.summaries.findById(id).lean<SummaryDocument>())?.eventId === eventId;
  }
}
