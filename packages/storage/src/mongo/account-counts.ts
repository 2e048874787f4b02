/**
 * A cap on the records one account may hold, exact across replicas: one document per account,
 * `{_id: account, count, lastTakenAt}`, counting the records it holds and the creates under way. A create
 * takes one with ONE update guarded by the cap (`count < max` → `$inc`); none matches when the account is
 * full. Records are never deleted, so a count is given back only when its record was never written: at
 * once by a create that failed, or, for a process that died between the two, by a later create that finds
 * the account at its cap with fewer records and no count taken for a while.
 */
import type { Collection, Filter } from 'mongodb';
import { isDuplicateKeyError } from './errors';

/** The count of one account (`_id` the account id). */
export interface AccountCount {
  _id: string;
  count: number;
  /** When a create last took a count: a repair leaves the account alone until this is old. */
  lastTakenAt: Date;
}

export class AccountCounts {
  /** `recordsOf` counts the records an account holds (on its owner index): where a new count starts. */
  constructor(
    private readonly counts: Collection<AccountCount>,
    private readonly recordsOf: (accountId: string) => Promise<number>,
  ) {}

  /**
   * Takes one of the account's `max` for a create; false when it holds (or is creating) `max` records. At
   * the cap, counts that no create holds any more (see repair) are given back first.
   */
  async take(accountId: string, max: number, at: Date, leakedBefore: Date): Promise<boolean> {
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      const { matchedCount } = await this.counts.updateOne(
        { _id: accountId, count: { $lt: max } } as Filter<AccountCount>,
        { $inc: { count: 1 }, $max: { lastTakenAt: at } },
      );
      if (matchedCount === 1) return true;
      const kept = await this.counts.findOne({ _id: accountId });
      if (kept) {
        if (kept.count >= max && (await this.repair(kept, leakedBefore)) === 0) return false;
        continue;
      }
      // The account's first create since it is counted: the count starts from the records it holds.
      const records = await this.recordsOf(accountId);
      try {
        await this.counts.insertOne({ _id: accountId, count: Math.min(records, max), lastTakenAt: at });
      } catch (error) {
        if (!isDuplicateKeyError(error)) throw error; // another create started it: take from it
      }
    }
    throw new Error(`count of account ${accountId} not taken after 3 attempts`);
  }

  /** Gives back a count whose record was never written. */
  async giveBack(accountId: string): Promise<void> {
    await this.counts.updateOne({ _id: accountId, count: { $gt: 0 } } as Filter<AccountCount>, { $inc: { count: -1 } });
  }

  /**
   * Sets the count of an account to the records it holds when it counts more and no create took a count
   * since `leakedBefore` (a create under way holds its count for milliseconds; more is a process that died
   * between the two): guarded by the count as read, so a create taking one meanwhile leaves it as it is.
   * The counts given back.
   */
  private async repair(kept: AccountCount, leakedBefore: Date): Promise<number> {
    if (kept.lastTakenAt >= leakedBefore) return 0;
    const records = await this.recordsOf(kept._id);
    if (kept.count <= records) return 0;
    const { modifiedCount } = await this.counts.updateOne({ _id: kept._id, count: kept.count, lastTakenAt: kept.lastTakenAt } as Filter<AccountCount>, { $set: { count: records } });
    return modifiedCount === 1 ? kept.count - records : 0;
  }
}
