/**
 * The slots' current placements as the site's pages see them (the public read and the impression report,
 * each page view of the website), kept in memory so that a page view does not wait on the store. A slot is
 * read from the store once, then again after a placement.changed event names it (every replica hears it
 * on a queue of its own), after this replica's own change, and at the latest MAX_AGE_MS after it was
 * read: the bound on a change missed while the broker was away. A placement's schedule is checked at each
 * call against the clock, so a placement still ends at its end.
 */
import type { PlacementRepository, SlotRecord } from './placement-repository';
import type { Slot } from '../domain/slots';

/** How long a slot read from the store is used without an event telling it changed. */
export const MAX_AGE_MS = 5_000;

export class ShowingSlots {
  private readonly read = new Map<Slot, { record: Promise<SlotRecord | null>; at: number }>();

  constructor(
    private readonly placements: Pick<PlacementRepository, 'currentOf'>,
    private readonly maxAgeMs = MAX_AGE_MS,
  ) {}

  currentOf(slot: Slot): Promise<SlotRecord | null> {
    const now = performance.now();
    const kept = this.read.get(slot);
    if (kept && now - kept.at < this.maxAgeMs) return kept.record;
    const record = this.placements.currentOf(slot);
    const entry = { record, at: now };
    this.read.set(slot, entry);
    // A failed read is not kept: the next call reads again.
    record.catch(() => {
      if (this.read.get(slot) === entry) this.read.delete(slot);
    });
    return record;
  }

  /** The slot changed: the next call reads it again. A read still running is not kept either. */
  forget(slot: Slot): void {
    this.read.delete(slot);
  }

  /** Events may have been missed (the broker connection was away): every slot is read again. */
  forgetAll(): void {
    this.read.clear();
  }
}
