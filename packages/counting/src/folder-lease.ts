/**
 * The folder's lease: a document in MongoDB whose fencing number goes up at every taking and is carried by
 * every fold write, so that a folder that lost the lease cannot land a write on a document the next holder wrote.
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

export class FolderLease {
  constructor(
    private readonly leases: Collection<FolderLeaseDocument>,
    private readonly clock: Clock,
  ) {}

  /** Takes or renews the lease for `ms`: its fencing number while `holder` holds it, null while another does. */
  async hold(holder: string, ms: number): Promise<number | null> {
    const now = this.clock.now();
    const until = new Date(now.getTime() + ms);
    const renewed = await this.leases.findOneAndUpdate({ _id: 'lease', holder }, { $set: { until } }, { returnDocument: 'after' });
    if (renewed) return renewed.fence;
    try {
      // An upsert the first time; a lease held by another fails it on the `_id`.
      const taken = await this.leases.findOneAndUpdate({ _id: 'lease', until: { $lte: now } } as Filter<FolderLeaseDocument>, { $set: { holder, until }, $inc: { fence: 1 } }, { returnDocument: 'after', upsert: true });
      return taken?.holder === holder ? taken.fence : null;
    } catch (error) {
      if (isDuplicateKeyError(error)) return null;
      throw error;
    }
  }

  /** Lets the lease go, so that another replica takes it at once. */
  async release(holder: string): Promise<void> {
    await this.leases.updateOne({ _id: 'lease', holder }, { $set: { until: new Date(0) } });
  }
}

/** What every fold write is given: the lease's fencing number, and a check made just before each write. */
export interface FoldGuard {
  fence: number;
  stillHeld(): Promise<boolean>;
}

export class FoldingInterruptedError extends Error {
  constructor() {
    super('the folder lease was lost while applying folds');
    this.name = 'FoldingInterruptedError';
  }
}

export async function checkHeld(guard: FoldGuard): Promise<void> {
  if (!(await guard.stillHeld())) throw new FoldingInterruptedError();
}
