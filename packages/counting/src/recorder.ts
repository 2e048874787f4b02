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
    return this.adRequestStep(this.keys.testAdRequestLimit(ownerAccountId), limit, null, now);
  }

  private adRequestStep(limitKey: string, limit: AdRequestLimit, fact: AdRequestFact | null, now: Date): Promise<AdRequestCount> {
    return this.guarded('ad request count', async () => {
      const [id, count] = this.adRequestCountArgs(fact, now);
      const [consumed, ms, counted, allowed] = await this.commands.countAdRequest(
        limitKey,
        this.keys.openIntervals,
        this.keys.owners,
        this.keys.recentAdRequests(now),
        limit.points,
        limit.windowSeconds,
        id,
        RECENT_AD_REQUESTS_MS,
        ...count,
      );
      return { consumed, msBeforeReset: ms, allowed: allowed === 1, counted: counted === 1 };
    });
  }

  /** Counts the first confirmation or the first counted click of an allocation; false when already counted. */
  /**
   * Counts a first confirmation or click of an allocation; true when this call counted it. `attemptId`
   * identifies the call (a new one by default): the same call arriving again (ioredis resending a script
   * whose answer a broken connection lost) answers true again without counting twice.
   */
  countOnce(kind: 'confirmedDeliveries' | 'clickedLinks', allocationId: string, allocation: CountedAllocation, now: Date, attemptId = randomBytes(12).toString('base64url')): Promise<boolean> {
    return this.guarded(`${kind} count`, async () => {
      const hour = hourOf(allocation.allocatedAt);
      const ttlMs = Math.max(60_000, onceSetEnd(hour) + HOUR_MS - now.getTime());
      const counted = await this.commands.countOnce(
        this.keys.once(kind === 'confirmedDeliveries' ? 'confirmed' : 'clicked', hour),
        this.keys.onceHours,
        this.keys.openIntervals,
        this.keys.owners,
        this.keys.recentOnceAttempts(now),
        allocationId,
        ttlMs,
        hour,
        attemptId,
        ...this.countArgs(allocation, kind, now),
      );
      return counted === 1;
    });
  }

  /**
   * A confirmation or click of a test allocation (the sandbox): true the first time, never
   * counted in any total. The set lives as long as a counted-once set of the same hour would.
   */
  firstTestFact(kind: 'confirmedDeliveries' | 'clickedLinks', allocationId: string, allocatedAt: Date, now: Date): Promise<boolean> {
    return this.guarded(`test ${kind}`, async () => {
      const hour = hourOf(allocatedAt);
      const ttlMs = Math.max(60_000, onceSetEnd(hour) + HOUR_MS - now.getTime());
      const added = await this.commands.markOnce(this.keys.testOnce(kind === 'confirmedDeliveries' ? 'confirmed' : 'clicked', hour), allocationId, ttlMs);
      return added === 1;
    });
  }

  /** Counts a visit of a click link that redirected without being a click (HEAD, a preview fetcher). */
  async countFilteredVisit(visit: FilteredVisit, allocation: CountedAllocation, now: Date): Promise<void> {
    await this.guarded('filtered visit count', () =>
      this.commands.countEveryTime(this.keys.openIntervals, this.keys.owners, ...this.countArgs(allocation, `filtered_${visit}`, now)),
    );
  }

  /** Counts one `kind` on `day` in each of `grains`, every time (a website placement's impressions). */
  async count(grains: string[], day: string, kind: string, now: Date): Promise<void> {
    const interval = intervalEndOf(now, this.intervalMs);
    await this.guarded(`${kind} count`, () =>
      this.commands.countEveryTime(this.keys.openIntervals, this.keys.owners, interval, this.keys.intervalPrefix(interval), fieldOf(day, kind), ...NO_OWNERS, grains.length, ...grains),
    );
  }

  /** The id that makes an ad request's count idempotent, and the arguments of the scripts' countFact ('' when nothing is counted). */
  private adRequestCountArgs(fact: AdRequestFact | null, now: Date): [string, string[]] {
    if (!fact) return ['', ['', '', '', '', '', '', '', '0']];
    if ('unfilled' in fact) {
      const interval = intervalEndOf(now, this.intervalMs);
      const publisher = `p:${fact.publisherId}`;
      const day = dayOf(fact.requestedAt);
      const grains = unfilledGrainsOf(fact);
      return [
        fact.requestId,
        [
          String(interval),
          this.keys.intervalPrefix(interval),
          fieldOf(day, UNFILLED_KIND),
          publisher,
          fact.publisherOwnerAccountId,
          publisher,
          fact.publisherOwnerAccountId,
          String(grains.length),
          ...grains,
          ...grains.flatMap((grain) => [grain, hourFieldOf(fact.requestedAt, UNFILLED_KIND)]),
          ...unfilledBreakdownCountsOf(fact, day).flat(),
        ],
      ];
    }
    return [fact.allocationId, this.countArgs(fact, 'adRequests', now)];
  }

  private countArgs(allocation: CountedAllocation, kind: CountKind, now: Date): string[] {
    const interval = intervalEndOf(now, this.intervalMs);
    const day = dayOf(allocation.allocatedAt);
    const grains = grainsOf(allocation, kind);
    return [
      String(interval),
      this.keys.intervalPrefix(interval),
      fieldOf(day, kind),
      ...ownerFields(allocation),
      String(grains.length),
      ...grains,
      // The hour of the fact in the same grains (filtered visits, which no answer shows by the hour, aside).
      ...(kind.startsWith('filtered_') ? [] : grains.flatMap((grain) => [grain, hourFieldOf(allocation.allocatedAt, kind)])),
      ...breakdownCountsOf(allocation, kind, day).flat(),
    ];
  }

  private guarded<T>(what: string, work: () => Promise<T>): Promise<T> {
    return asInfrastructureFault(work, this.timeoutMs, 'redis', what);
  }
}
