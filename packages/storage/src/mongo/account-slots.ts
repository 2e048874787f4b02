/**
 * A cap on the records one account may hold, exact across replicas on both stores: each record takes a
 * slot 1..max of its account, claimed by inserting `<account>:<slot>`; the unique `_id` refuses a second
 * claim of the same slot. Records are never deleted, so a claim is given back only
 * when its record was never written: at once by a create that failed, or later (releaseLeaked) for a
 * process that died between the claim and the record.
 */
import type { Model } from 'mongoose';
import { claimOnce } from './claim-once';
import { storedSchema } from './models';

/** The claim of slot `slot` of an account, under `<account>:<slot>`. */
export interface SlotClaim {
  _id: string;
  accountId: string;
  slot: number;
  at: Date;
}

/** The schema of a slot collection (one per kind of record: `campaign_slots`, `publisher_slots`). */
export const slotClaimSchema = storedSchema<SlotClaim>(
  {
    _id: { type: String, required: true },
    accountId: { type: String, required: true },
    slot: { type: Number, required: true },
    at: { type: Date, required: true },
  },
  [[{ accountId: 1 }]],
);

export class AccountSlots {
  constructor(private readonly slots: Model<SlotClaim>) {}

  /**
   * Claims a free slot 1..max for the account; null when all are taken. The count only says where to start
   * looking; the unique `_id` of each claim decides. A second pass fills any gap the first one skipped.
   */
  async claim(accountId: string, max: number, at: Date): Promise<number | null> {
    const claimed = await this.slots.countDocuments({ accountId });
    const tryRange = async (slots: number[]): Promise<number | null> => {
      for (const slot of slots) {
        if (await claimOnce(this.slots, `${accountId}:${slot}`, { accountId, slot, at })) return slot;
      }
      return null;
    };
    const upward = Array.from({ length: Math.max(0, max - claimed) }, (_, index) => claimed + 1 + index);
    const first = await tryRange(upward);
    if (first !== null) return first;
    const taken = new Set((await this.slots.find({ accountId }, { slot: 1 }).lean<Array<Pick<SlotClaim, '_id' | 'slot'>>>()).map((claim) => claim.slot));
    const gaps = Array.from({ length: max }, (_, index) => index + 1).filter((slot) => !taken.has(slot));
    return tryRange(gaps);
  }

  /** Gives back a claim whose record was never written. */
  async release(accountId: string, slot: number): Promise<void> {
    await this.slots.deleteOne({ _id: `${accountId}:${slot}` });
  }

  /**
   * Gives back the claims of one account beyond its `records`, highest slots first, only among those
   * claimed before `claimedBefore` (a create under way holds its claim for milliseconds). The number released.
   */
  async releaseLeaked(accountId: string, records: number, claimedBefore: Date): Promise<number> {
    const held = await this.slots.find({ accountId }, { slot: 1, at: 1 }).lean<Array<Pick<SlotClaim, '_id' | 'slot' | 'at'>>>();
    const excess = held.length - records;
    if (excess <= 0) return 0;
    const stale = held.filter((claim) => claim.at < claimedBefore).sort((a, b) => b.slot - a.slot);
    let released = 0;
    for (const claim of stale.slice(0, excess)) {
      await this.release(accountId, claim.slot);
      released += 1;
    }
    return released;
  }
}
