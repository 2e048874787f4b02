/**
 * The folder lease, in MongoDB beside the folder state (`totals_folder`, `_id: 'lease'`): one folder writes
 * at a time, and every taking of the lease increments its fencing number (`fence`). Each fold write
 * carries the number in its filter (a document's `fence` not above it) and onto the document, so a folder
 * that lost the lease (paused past it, cut off) cannot land a write on a document the next holder wrote.
 * The number lives in MongoDB: a Redis restored from a copy or failed over never hands out one used before.
 */
import type { Clock } from '@pilot/platform';
import { isDuplicateKeyError } from '@pilot/storage';
import type { Collection, Filter } from 'mongodb';

export interface FolderLeaseDocument {
  _id: 'lease';
  holder: string;
  until: Date;
  fence: number;
}

const LEASE_ID = 'lease';

export class FolderLease {
  constructor(
    private readonly leases: Collection<FolderLeaseDocument>,
    private readonly clock: Clock,
  ) {}

  /** Takes or renews the lease for `ms`: its fencing number while `holder` holds it, null while another does. */
  async hold(holder: string, ms: number): Promise<number | null> {
    const now = this.clock.now();
    const until = new Date(now.getTime() + ms);
    const renewed = await this.leases.findOneAndUpdate({ _id: LEASE_ID, holder }, { $set: { until } }, { returnDocument: 'after' });
    if (renewed) return renewed.fence;
    try {
      // An upsert when no lease was ever taken; a lease held by another fails it on the `_id` (E11000).
      const taken = await this.leases.findOneAndUpdate({ _id: LEASE_ID, until: { $lte: now } } as Filter<FolderLeaseDocument>, { $set: { holder, until }, $inc: { fence: 1 } }, { returnDocument: 'after', upsert: true });
      return taken?.holder === holder ? taken.fence : null;
    } catch (error) {
      if (isDuplicateKeyError(error)) return null;
      throw error;
    }
  }

  /** Lets the lease go, so that another replica takes it at once (its number still goes up). */
  async release(holder: string): Promise<void> {
    await this.leases.updateOne({ _id: LEASE_ID, holder }, { $set: { until: new Date(0) } });
  }
}

/** What every fold write is given: the lease's fencing number, and a check made just before each write. */
export interface FoldGuard {
  fence: number;
  /** False once another folder holds the lease. */
  stillHeld(): Promise<boolean>;
}

export class FoldingInterruptedError extends Error {
  constructor() {
    super('the folder lease was lost while applying folds');
    this.name = 'FoldingInterruptedError';
  }
}

/** Throws FoldingInterruptedError unless the lease is still held. */
export async function checkHeld(guard: FoldGuard): Promise<void> {
  if (!(await guard.stillHeld())) throw new FoldingInterruptedError();
}
