/**
 * The counted-once sets: one per kind and hour of allocation, holding the allocations whose confirmation
 * or click counted. A set is kept until no token of its hour can arrive any more, then swept.
 */

export const HOUR_MS = 3_600_000;

/** A counted-once set outlives the last token of its hour (one hour after the hour ends) by this much. */
export const ONCE_MARGIN_MS = 15 * 60_000;

export function hourOf(at: Date): number {
  return Math.floor(at.getTime() / HOUR_MS);
}

/** The instant from which the counted-once set of `hour` is no longer needed. */
export function onceSetEnd(hour: number): number {
  return (hour + 2) * HOUR_MS + ONCE_MARGIN_MS;
}
