/**
 * The writers' side of the counting pipeline: allocation counts an ad request in the same atomic step as
 * its limit, tracking counts a first confirmation or click at most once per allocation. Every call has a
 * deadline; any Redis failure is a fault of infrastructure (503), never a silent pass.
 */
import { randomBytes } from 'node:crypto';
import { asInfrastructureFault } from '@pilot/platform';
import type { Redis } from 'ioredis';
import {
  CountKeys,
  DEFAULT_INTERVAL_MS,
  fieldOf,
  grainsOf,
  dayOf,
  intervalEndOf,
  ownerFields,
  UNFILLED_KIND,
  unfilledGrainsOf,
  type CountedAllocation,
  type CountKind,
  type FilteredVisit,
  type UnfilledAdRequest,
} from './layout';
import { breakdownCountsOf, unfilledBreakdownCountsOf } from './breakdown-layout';
import { hourFieldOf } from './hourly-layout';
import { countCommandsOn, type CountCommands } from './lua-commands';
import { HOUR_MS, hourOf, onceSetEnd } from './once-sets';

export interface LimitState {
  /** Requests consumed in the current window, this one included. */
  consumed: number;
  msBeforeReset: number;
}

export interface AdRequestCount extends LimitState {
  allowed: boolean;
  /** True when this request was counted (allowed and a creative was chosen). */
  counted: boolean;
}

export interface AdRequestLimit {
  points: number;
  windowSeconds: number;
}

/**
 * What an ad request within the limit counts: a chosen creative's allocation (a 200, one of the totals),
 * an unfilled request (a 204, for the fill rate: `unfilled` with an id of the request, so a resent count
 * counts once), or nothing (null: a refused language, a test key's answer).
 */
export type AdRequestFact = (CountedAllocation & { allocationId: string }) | (UnfilledAdRequest & { unfilled: true; requestId: string });

/** Owner fields for counts about no campaign or publisher (the owners hash gets a harmless `-` entry). */
const NO_OWNERS = ['-', '-', '-', '-'];
/** How long an ad request's allocation id is remembered, so that a resent count does not count again. */
const RECENT_AD_REQUESTS_MS = 5 * 60_000;

export class CountRecorder {
  private readonly keys: CountKeys;
  private readonly commands: CountCommands;

  constructor(
    redis: Redis,
    prefix: string,
    private readonly timeoutMs: number,
    /** The length of the intervals this writer counts in (COUNT_INTERVAL_MS). */
    private readonly intervalMs: number = DEFAULT_INTERVAL_MS,
  ) {
    this.keys = new CountKeys(prefix);
    this.commands = countCommandsOn(redis);
  }

  /**
   * Consumes one request of the publisher's live key limit and, when within it and `fact` is given, counts
   * it: a chosen creative's ad request (200) or an unfilled one (204). One atomic step, so every 200 and
   * every 204 is counted exactly once (a call resent after a lost answer finds its id counted and answers the same).
   */
  countAdRequest(publisherId: number, limit: AdRequestLimit, fact: AdRequestFact | null, now: Date): Promise<AdRequestCount> {
    return this.adRequestStep(this.keys.adRequestLimit(publisherId), limit, fact, now);
  }

  /** Consumes one request of the window all test keys of `ownerAccountId` share, counting nothing. */
  consumeTestAdRequest(ownerAccountId: string, limit: AdRequestLimit, now: Date): Promise<AdRequestCount> {
    return this.adRequestStep(this.keys.adRequestLimit(ownerAccountId, true), limit, null, now);
  }

  private adRequestStep(limitKey: string, limit: AdRequestLimit, fact: AdRequestFact | null, now: Date): Promise<AdRequestCount> {
    return this.guarded('ad request count', async () => {
      const { keys } = this;
      const [id, count] = !fact ? ['', ['', '', '', '', '', '', '', '0']] : 'unfilled' in fact ? [fact.requestId, this.unfilledArgs(fact, now)] : [fact.allocationId, this.countArgs(fact, 'adRequests', now)];
      const [consumed, ms, counted, allowed] = await this.commands.countAdRequest(limitKey, keys.openIntervals, keys.owners, keys.recent('ads', now), limit.points, limit.windowSeconds, id, RECENT_AD_REQUESTS_MS, ...count);
      return { consumed, msBeforeReset: ms, allowed: allowed === 1, counted: counted === 1 };
    });
  }

  /**
   * Counts a first confirmation or click of an allocation; true when this call counted it. `attemptId`
   * identifies the call (a new one by default): the same call arriving again (ioredis resending a script
   * whose answer a broken connection lost) answers true again without counting twice.
   */
  countOnce(kind: 'confirmedDeliveries' | 'clickedLinks', allocationId: string, allocation: CountedAllocation, now: Date, attemptId = randomBytes(12).toString('base64url')): Promise<boolean> {
    return this.guarded(`${kind} count`, async () => {
      const hour = hourOf(allocation.allocatedAt);
      const { keys } = this;
      const set = keys.once(kind === 'confirmedDeliveries' ? 'confirmed' : 'clicked', hour);
      const args = [allocationId, onceSetTtl(hour, now), hour, attemptId, ...this.countArgs(allocation, kind, now)];
      return (await this.commands.countOnce(set, keys.onceHours, keys.openIntervals, keys.owners, keys.recent('once', now), ...args)) === 1;
    });
  }

  /** A confirmation or click of a test allocation (the sandbox): true the first time, never counted in any total. */
  firstTestFact(kind: 'confirmedDeliveries' | 'clickedLinks', allocationId: string, allocatedAt: Date, now: Date): Promise<boolean> {
    return this.guarded(`test ${kind}`, async () => {
      const hour = hourOf(allocatedAt);
      const set = this.keys.once(kind === 'confirmedDeliveries' ? 'confirmed' : 'clicked', hour, true);
      return (await this.commands.markOnce(set, allocationId, onceSetTtl(hour, now))) === 1;
    });
  }

  /** Counts a visit of a click link that redirected without being a click (HEAD, a preview fetcher). */
  async countFilteredVisit(visit: FilteredVisit, allocation: CountedAllocation, now: Date): Promise<void> {
    await this.guarded('filtered visit count', () => this.commands.countEveryTime(this.keys.openIntervals, this.keys.owners, ...this.countArgs(allocation, `filtered_${visit}`, now)));
  }

  /** Counts one `kind` on `day` in each of `grains`, every time (a website placement's impressions). */
  async count(grains: string[], day: string, kind: string, now: Date): Promise<void> {
    await this.guarded(`${kind} count`, () => this.commands.countEveryTime(this.keys.openIntervals, this.keys.owners, ...this.factArgs(now, fieldOf(day, kind), NO_OWNERS, grains, [])));
  }

  /** countFact's arguments (count-fact.lua): the interval, the field, two owners, the grains, then the (grain, field) pairs. */
  private factArgs(now: Date, field: string, owners: string[], grains: string[], pairs: Array<[string, string]>): string[] {
    const interval = intervalEndOf(now, this.intervalMs);
    return [String(interval), this.keys.intervalPrefix(interval), field, ...owners, String(grains.length), ...grains, ...pairs.flat()];
  }

  private unfilledArgs(fact: UnfilledAdRequest, now: Date): string[] {
    const day = dayOf(fact.requestedAt);
    const grains = unfilledGrainsOf(fact);
    const publisher = `p:${fact.publisherId}`;
    const hours = grains.map((grain): [string, string] => [grain, hourFieldOf(fact.requestedAt, UNFILLED_KIND)]);
    return this.factArgs(now, fieldOf(day, UNFILLED_KIND), [publisher, fact.publisherOwnerAccountId, publisher, fact.publisherOwnerAccountId], grains, [...hours, ...unfilledBreakdownCountsOf(fact, day)]);
  }

  private countArgs(allocation: CountedAllocation, kind: CountKind, now: Date): string[] {
    const day = dayOf(allocation.allocatedAt);
    const grains = grainsOf(allocation, kind);
    // The hour of the fact in the same grains (filtered visits, which no answer shows by the hour, aside).
    const hours = kind.startsWith('filtered_') ? [] : grains.map((grain): [string, string] => [grain, hourFieldOf(allocation.allocatedAt, kind)]);
    return this.factArgs(now, fieldOf(day, kind), ownerFields(allocation), grains, [...hours, ...breakdownCountsOf(allocation, kind, day)]);
  }

  private guarded<T>(what: string, work: () => Promise<T>): Promise<T> {
    return asInfrastructureFault(work, this.timeoutMs, 'redis', what);
  }
}

/** A counted-once set lives until an hour after it is no longer needed (at least a minute). */
function onceSetTtl(hour: number, now: Date): number {
  return Math.max(60_000, onceSetEnd(hour) + HOUR_MS - now.getTime());
}
