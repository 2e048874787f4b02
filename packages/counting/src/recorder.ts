/** The writers' side. Any Redis failure or late answer is a fault of infrastructure (503). */
import { randomBytes } from 'node:crypto';
import { asInfrastructureFault } from '@pilot/platform';
import type { Redis } from 'ioredis';
import { breakdownCountsOf, unfilledBreakdownCountsOf } from './breakdown-layout';
import { countKeys, type CountKeys, DEFAULT_INTERVAL_MS, dayOf, fieldOf, grainsOf, HOUR_MS, hourFieldOf, hourOf, intervalEndOf, onceSetEnd, UNFILLED_KIND, unfilledGrainsOf } from './layout';
import type { CountedAllocation, CountKind, FilteredVisit, UnfilledAdRequest } from './layout';
import { countCommandsOn, type CountCommands } from './lua-commands';

/** `consumed`: the requests of the current window, this one included. */
export type AdRequestCount = { consumed: number; msBeforeReset: number; allowed: boolean; counted: boolean };
export type AdRequestLimit = { points: number; windowSeconds: number };

/** A chosen creative's allocation (a 200), an unfilled request (a 204, with an id so a resend counts once), or nothing (null). */
export type AdRequestFact = (CountedAllocation & { allocationId: string }) | (UnfilledAdRequest & { unfilled: true; requestId: string });

// An attempt id need only differ from every other call's: a random prefix per process and a counter.
const attemptPrefix = randomBytes(9).toString('base64url');
let attempts = 0;

/** How long an ad request's id is remembered against a resent count. */
const RECENT_AD_REQUESTS_MS = 5 * 60_000;

export class CountRecorder {
  private readonly keys: CountKeys;
  private readonly commands: CountCommands;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly timeoutMs: number,
    private readonly intervalMs: number = DEFAULT_INTERVAL_MS,
  ) {
    this.keys = countKeys(prefix);
    this.commands = countCommandsOn(redis);
  }

  /** Consumes one request of the platform's live key limit and, within it, counts `fact`: one atomic step (count-ad-request.lua). */
  countAdRequest(publisherId: number, limit: AdRequestLimit, fact: AdRequestFact | null, now: Date): Promise<AdRequestCount> {
    return this.adRequestStep(this.keys.adRequestLimit(publisherId), limit, fact, now);
  }

  /** Consumes one request of the window all test keys of an account share, counting nothing. */
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

  /** Counts a first confirmation or click: true when this call (`attemptId`, which a resend keeps) counted it. */
  countOnce(kind: 'confirmedDeliveries' | 'clickedLinks', allocationId: string, allocation: CountedAllocation, now: Date, attemptId = `${attemptPrefix}${(attempts += 1).toString(36)}`): Promise<boolean> {
    return this.guarded(`${kind} count`, async () => {
      const hour = hourOf(allocation.allocatedAt);
      const { keys } = this;
      const set = keys.once(kind === 'confirmedDeliveries' ? 'confirmed' : 'clicked', hour);
      const args = [allocationId, onceSetTtl(hour, now), hour, attemptId, ...this.countArgs(allocation, kind, now)];
      return (await this.commands.countOnce(set, keys.onceHours, keys.openIntervals, keys.owners, keys.recent('once', now), ...args)) === 1;
    });
  }

  /** A confirmation or click of a sandbox allocation: true the first time, never counted. */
  firstTestFact(kind: 'confirmedDeliveries' | 'clickedLinks', allocationId: string, allocatedAt: Date, now: Date): Promise<boolean> {
    return this.guarded(`test ${kind}`, async () => {
      const hour = hourOf(allocatedAt);
      const set = this.keys.once(kind === 'confirmedDeliveries' ? 'confirmed' : 'clicked', hour, true);
      const [[error, added]] = (await this.redis.multi().sadd(set, allocationId).pexpire(set, onceSetTtl(hour, now)).exec()) as [[Error | null, number]];
      if (error) throw error;
      return added === 1;
    });
  }

  async countFilteredVisit(visit: FilteredVisit, allocation: CountedAllocation, now: Date): Promise<void> {
    await this.guarded('filtered visit count', () => this.commands.countEveryTime(this.keys.openIntervals, this.keys.owners, ...this.countArgs(allocation, `filtered_${visit}`, now)));
  }

  /** Counts one `kind` on `day` in each of `grains`, every time, by the day only and about no campaign or platform (`-` owners): a placement's impressions. */
  async count(grains: string[], day: string, kind: string, now: Date): Promise<void> {
    await this.guarded(`${kind} count`, () => this.commands.countEveryTime(this.keys.openIntervals, this.keys.owners, ...this.factArgs(now, null, day, kind, ['-', '-', '-', '-'], grains, [])));
  }

  /** count-fact.lua's arguments; no answer shows filtered visits by the hour. */
  private factArgs(now: Date, at: Date | null, day: string, kind: string, owners: string[], grains: string[], breakdowns: Array<[string, string]>): string[] {
    const interval = intervalEndOf(now, this.intervalMs);
    const hours = at === null || kind.startsWith('filtered_') ? [] : grains.flatMap((grain) => [grain, hourFieldOf(at, kind)]);
    return [String(interval), this.keys.intervalPrefix(interval), fieldOf(day, kind), ...owners, String(grains.length), ...grains, ...hours, ...breakdowns.flat()];
  }

  private unfilledArgs(fact: UnfilledAdRequest, now: Date): string[] {
    const [day, publisher] = [dayOf(fact.requestedAt), `p:${fact.publisherId}`];
    const owners = [publisher, fact.publisherOwnerAccountId, publisher, fact.publisherOwnerAccountId];
    return this.factArgs(now, fact.requestedAt, day, UNFILLED_KIND, owners, unfilledGrainsOf(fact), unfilledBreakdownCountsOf(fact, day));
  }

  private countArgs(allocation: CountedAllocation, kind: CountKind, now: Date): string[] {
    const { campaignId, publisherId, campaignOwnerAccountId, publisherOwnerAccountId, allocatedAt } = allocation;
    const owners = [`c:${campaignId}`, campaignOwnerAccountId, `p:${publisherId}`, publisherOwnerAccountId];
    return this.factArgs(now, allocatedAt, dayOf(allocatedAt), kind, owners, grainsOf(allocation, kind), breakdownCountsOf(allocation, kind, dayOf(allocatedAt)));
  }

  private guarded<T>(what: string, work: () => Promise<T>): Promise<T> {
    return asInfrastructureFault(work, this.timeoutMs, 'redis', what);
  }
}

/** A counted-once set lives until an hour after it is no longer needed (at least a minute). */
function onceSetTtl(hour: number, now: Date): number {
  return Math.max(60_000, onceSetEnd(hour) + HOUR_MS - now.getTime());
}
