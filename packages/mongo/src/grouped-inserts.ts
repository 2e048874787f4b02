/**
 * Group commit for inserts into one collection. Callers insert one document each and learn whether their
 * insert created it (true) or found its `_id` taken (false), exactly as with insertOne; underneath, the
 * documents that arrive while a write is in flight go to the database together in one unordered insertMany
 * when it returns. Under load a database round trip then carries tens of documents instead of one (on
 * FerretDB a document costs about a seventh of the CPU that way); an idle collection still writes at once.
 *
 * A caller waits at most `timeoutMs`: a document still queued then is withdrawn and never written, one
 * already sent may or may not land (as with any write whose answer did not arrive). Either way the caller
 * gets a ServiceUnavailableError, the 503 of an infrastructure fault.
 */
import { ServiceUnavailableError } from '@pilot/faults';
import type { Collection, Document, OptionalUnlessRequiredId } from 'mongodb';
import { isDuplicateKeyError } from './errors';

export interface GroupedInsertsOptions {
  timeoutMs: number;
  /** Most documents in one insertMany (default 200). */
  maxBatch?: number;
  /**
   * How long the first document of a batch waits for company (default 0: one turn of the event loop).
   * For writers nobody waits on interactively, such as an event consumer, where larger batches are worth
   * a few milliseconds.
   */
  lingerMs?: number;
}

interface Waiting<D> {
  document: D;
  settle(outcome: { inserted: boolean } | { error: Error }): void;
}

interface WriteErrorLike {
  index: number;
  code?: number;
  errmsg?: string;
}

export class GroupedInserts<D extends Document> {
  private readonly queue: Waiting<D>[] = [];
  private writing = false;
  private flushScheduled = false;
  private readonly maxBatch: number;

  constructor(
    private readonly collection: Collection<D>,
    private readonly options: GroupedInsertsOptions,
  ) {
    this.maxBatch = options.maxBatch ?? 200;
  }

  /** true when this call created the document, false when a document with its `_id` existed already. */
  insert(document: D): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      const timer = setTimeout(() => {
        const queued = this.queue.indexOf(waiting);
        if (queued >= 0) this.queue.splice(queued, 1);
        waiting.settle({ error: new ServiceUnavailableError('mongodb', `insert did not complete within ${this.options.timeoutMs} ms`) });
      }, this.options.timeoutMs);
      let settled = false;
      const waiting: Waiting<D> = {
        document,
        settle: (outcome) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          if ('error' in outcome) reject(outcome.error);
          else resolve(outcome.inserted);
        },
      };
      this.queue.push(waiting);
      this.scheduleFlush();
    });
  }

  private scheduleFlush(): void {
    if (this.writing || this.flushScheduled) return;
    this.flushScheduled = true;
    const run = () => {
      this.flushScheduled = false;
      void this.flush();
    };
    // At least one turn of the event loop: the documents of requests read in the same I/O pass travel together.
    if (this.options.lingerMs) setTimeout(run, this.options.lingerMs);
    else setImmediate(run);
  }

  private async flush(): Promise<void> {
    if (this.writing || this.queue.length === 0) return;
    this.writing = true;
    const batch = this.queue.splice(0, this.maxBatch);
    try {
      await this.collection.insertMany(
        batch.map((waiting) => waiting.document as OptionalUnlessRequiredId<D>),
        { ordered: false },
      );
      for (const waiting of batch) waiting.settle({ inserted: true });
    } catch (error) {
      settleFailedBatch(batch, error);
    } finally {
      this.writing = false;
      if (this.queue.length > 0) this.scheduleFlush();
    }
  }
}

/** Maps an unordered insertMany's write errors back to its documents: a duplicate `_id` is an answer, not a fault. */
function settleFailedBatch<D>(batch: Waiting<D>[], error: unknown): void {
  const writeErrors = writeErrorsOf(error);
  // A failure of the whole call (network, timeout) may come as a bulk write error with no write errors.
  if (!writeErrors || writeErrors.length === 0) {
    const message = (error as Error).message;
    for (const waiting of batch) waiting.settle({ error: new ServiceUnavailableError('mongodb', `insert failed: ${message}`) });
    return;
  }
  const failures = new Map(writeErrors.map((writeError) => [writeError.index, writeError]));
  batch.forEach((waiting, index) => {
    const failure = failures.get(index);
    if (!failure) waiting.settle({ inserted: true });
    else if (isDuplicateKeyError(failure)) waiting.settle({ inserted: false });
    else waiting.settle({ error: new ServiceUnavailableError('mongodb', `insert failed: ${failure.errmsg ?? `code ${String(failure.code)}`}`) });
  });
}

/** The driver reports one write error as an object and several as an array. */
function writeErrorsOf(error: unknown): WriteErrorLike[] | null {
  const reported = (error as { writeErrors?: unknown }).writeErrors;
  if (Array.isArray(reported)) return reported as WriteErrorLike[];
  if (reported && typeof reported === 'object' && typeof (reported as WriteErrorLike).index === 'number') return [reported as WriteErrorLike];
  return null;
}
