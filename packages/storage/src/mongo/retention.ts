/**
 * Retention for collections that grow by one document per event (docs/storage.md). FerretDB, the
 * local and test store, has no TTL indexes, so a periodic sweep does the deleting on every backend: per
 * rule, ONE deleteMany of the documents whose date field is older than `now - keepMs`, on an indexed field.
 *
 * Time comes from the injected clock (never Date.now()), so a test moves time instead of waiting. A failed
 * sweep is logged and retried at the next interval; it never throws out of the timer, and it runs beside
 * requests, never in front of one.
 */
import type { FilterQuery, Model } from 'mongoose';

/** What may be deleted from one collection: documents whose `dateFields` (any of them) are older than the window. */
export interface RetentionRule {
  /** The collection's name, in logs and sweep results. */
  name: string;
  /**
   * Date fields compared with the cutoff; a document goes when any of them is older (`$or`). A missing or
   * null field never matches, so `endedAt: null` keeps a document.
   */
  dateFields: string[];
  /** How long a document is kept after its date field. */
  keepMs: number;
  /** Deletes the documents `filter` matches; how many went. */
  deleteMany(filter: Record<string, unknown>): Promise<number>;
}

/**
 * The rule for `model`'s collection. Every date field must lead an index declared on the model's schema
 * (created by its repository's ensureIndexes), so a sweep never scans on MongoDB.
 */
export function retentionRule<T>(model: Model<T>, dateFields: Array<keyof T & string>, keepMs: number): RetentionRule {
  const name = model.collection.collectionName;
  const leading = new Set(model.schema.indexes().map(([keys]) => Object.keys(keys)[0]));
  for (const field of dateFields) if (!leading.has(field)) throw new Error(`retention of ${name} sweeps on ${field}, which its schema does not index`);
  return {
    name,
    dateFields,
    keepMs,
    deleteMany: async (filter) => (await model.deleteMany(filter as FilterQuery<T>)).deletedCount,
  };
}

/** The part of a logger the sweeper uses (pino's Logger fits). */
export interface SweepLogger {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
}

export interface RetentionSweeperOptions {
  rules: RetentionRule[];
  clock: { now(): Date };
  logger: SweepLogger;
  /** Time between sweeps after the one at start; 0 sweeps only at start. */
  intervalMs: number;
}

/** The documents one sweep deleted, by collection name. */
export type SweepResult = Record<string, number>;

/** The filter of one rule's deleteMany at `now`. */
export function retentionFilter(rule: Pick<RetentionRule, 'dateFields' | 'keepMs'>, now: Date): Record<string, unknown> {
  const cutoff = new Date(now.getTime() - rule.keepMs);
  const conditions = rule.dateFields.map((field) => ({ [field]: { $lt: cutoff } }));
  if (conditions.length === 1) return conditions[0]!;
  return { $or: conditions };
}

export class RetentionSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<SweepResult> | undefined;
  private stopped = true;

  constructor(private readonly options: RetentionSweeperOptions) {
    for (const rule of options.rules) {
      if (!(rule.keepMs > 0)) throw new Error(`retention of ${rule.name} must be positive`);
      if (rule.dateFields.length === 0) throw new Error(`retention of ${rule.name} needs a date field`);
    }
  }

  /** Sweeps now (in the background) and then every `intervalMs`. */
  start(): void {
    this.stopped = false;
    this.tick();
    if (this.options.intervalMs > 0) {
      this.timer = setInterval(() => this.tick(), this.options.intervalMs);
      this.timer.unref();
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    if (this.running) await this.running.catch(() => undefined);
  }

  /**
   * One sweep: one deleteMany per rule, at the clock's now. A rule that fails is logged and the others
   * still run; the result counts what was deleted. A sweep already running is joined, not doubled.
   */
  sweep(): Promise<SweepResult> {
    if (this.running) return this.running;
    this.running = this.sweepOnce().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private tick(): void {
    if (this.stopped) return;
    void this.sweep();
  }

  private async sweepOnce(): Promise<SweepResult> {
    const now = this.options.clock.now();
    const result: SweepResult = {};
    for (const rule of this.options.rules) {
      const name = rule.name;
      try {
        result[name] = await rule.deleteMany(retentionFilter(rule, now));
      } catch (error) {
        this.options.logger.warn({ collection: name, err: (error as Error).message }, 'retention sweep failed; will retry at the next interval');
      }
    }
    const deleted = Object.values(result).reduce((sum, count) => sum + count, 0);
    if (deleted > 0) this.options.logger.info({ deleted: result }, 'retention sweep deleted expired documents');
    return result;
  }
}
