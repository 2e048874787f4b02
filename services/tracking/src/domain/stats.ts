/**
 * The totals of SPEC.md ("Delivery record and counters") and API.md `GET /api/workspace/stats` (with the
 * unfilled ad requests beside them, for the fill rate): query
 * validation, which grains answer a filter for an account, and adding their day counts into the answer.
 * Pure.
 */
import { DAY_MS, dayOf, firstKeptHourlyDay, HOUR_MS, TOTAL_KINDS, UNFILLED_KIND, type GrainDays, type HourCounts } from '@pilot/counting';
import { positiveIntOf } from '@pilot/platform';

export interface StatsFilter {
  campaignId?: number;
  publisherId?: number;
  /** Inclusive UTC dates, YYYY-MM-DD. */
  from?: string;
  to?: string;
  /** Records of campaigns or publishers owned by this account; undefined for an administrator (all). */
  visibleTo?: string;
}

/**
 * The three totals of SPEC.md, and beside them (additive to API.md) `unfilledAdRequests`: ad requests
 * of the visible publishers answered 204 (within the limit, no creative qualified), so that
 * adRequests / (adRequests + unfilledAdRequests) is the fill rate. A 204 is about no campaign: it shows
 * only where the answer covers a publisher as a whole (no campaign filter).
 */
export interface Figures {
  adRequests: number;
  confirmedDeliveries: number;
  clickedLinks: number;
  unfilledAdRequests: number;
}

export interface DayFigures extends Figures {
  date: string;
}

export interface StatsAnswer extends Figures {
  days: DayFigures[];
}

export interface HourFigures extends Figures {
  /** ISO 8601, UTC, on the hour. */
  hour: string;
}

/** `stats` with `granularity=hour`: `hours` instead of `days`. */
export interface HourlyStatsAnswer extends Figures {
  hours: HourFigures[];
}

const FIGURE_KINDS = [...TOTAL_KINDS, UNFILLED_KIND] as const;
type FigureKind = (typeof FIGURE_KINDS)[number];

export type StatsQueryResult = { ok: true; filter: Omit<StatsFilter, 'visibleTo'> } | { ok: false; code: string; detail: string };

function utcDate(raw: string): string | null {
  if (!/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(raw)) return null;
  const parsed = new Date(`${raw}T00:00:00.000Z`);
  return !Number.isNaN(parsed.getTime()) && dayOf(parsed) === raw ? raw : null;
}

/** Validates `campaignId`, `publisherId`, `from`, `to`; an empty value is the same as an absent one. */
export function parseStatsQuery(query: Record<string, unknown>): StatsQueryResult {
  const filter: Omit<StatsFilter, 'visibleTo'> = {};
  const single = (name: string): string | undefined | null => {
    const value = query[name];
    if (value === undefined || value === '') return undefined;
    return typeof value === 'string' ? value : null;
  };
  for (const [name, code] of [
    ['campaignId', 'invalid_campaign_id'],
    ['publisherId', 'invalid_publisher_id'],
  ] as const) {
    const raw = single(name);
    if (raw === undefined) continue;
    const id = raw === null ? null : positiveIntOf(raw);
    if (id === null) return { ok: false, code, detail: `${name} must be one positive integer` };
    filter[name] = id;
  }
  for (const name of ['from', 'to'] as const) {
    const raw = single(name);
    if (raw === undefined) continue;
    const date = raw === null ? null : utcDate(raw);
    if (date === null) return { ok: false, code: 'invalid_date', detail: `${name} must be one UTC date, YYYY-MM-DD` };
    filter[name] = date;
  }
  if (filter.from && filter.to && filter.from > filter.to) {
    return { ok: false, code: 'invalid_date_range', detail: 'from must not be after to' };
  }
  return { ok: true, filter };
}

/**
 * Which grains answer a filter. Records visible to an account are those of its campaigns or its
 * publishers: with no id filter that is `co:` + `po:` (an account's campaigns never run on its own
 * publishers); with a campaign id, all of that campaign if the account owns it, otherwise that campaign
 * on the account's publishers; likewise for a publisher; with both, the pair if the account owns either.
 * `owners` are looked up first for the `ownerSubjects` the plan names.
 */
export interface StatsPlan {
  /** Every grain the answer may need, read before choosing. */
  candidates: string[];
  /** `c:<id>` / `p:<id>` whose owner decides which candidates count. */
  ownerSubjects: string[];
  choose(owners: Map<string, string>): string[];
}

export function planStats(filter: StatsFilter): StatsPlan {
  const { campaignId: c, publisherId: p, visibleTo: viewer } = filter;
  const fixed = (grains: string[]): StatsPlan => ({ candidates: grains, ownerSubjects: [], choose: () => grains });
  if (viewer === undefined) {
    if (c !== undefined && p !== undefined) return fixed([`cp:${c}:${p}`]);
    if (c !== undefined) return fixed([`c:${c}`]);
    if (p !== undefined) return fixed([`p:${p}`]);
    return fixed(['all']);
  }
  if (c !== undefined && p !== undefined) {
    const pair = `cp:${c}:${p}`;
    return {
      candidates: [pair],
      ownerSubjects: [`c:${c}`, `p:${p}`],
      choose: (owners) => (owners.get(`c:${c}`) === viewer || owners.get(`p:${p}`) === viewer ? [pair] : []),
    };
  }
  if (c !== undefined) {
    return {
      candidates: [`c:${c}`, `c:${c}|po:${viewer}`],
      ownerSubjects: [`c:${c}`],
      choose: (owners) => [owners.get(`c:${c}`) === viewer ? `c:${c}` : `c:${c}|po:${viewer}`],
    };
  }
  if (p !== undefined) {
    return {
      candidates: [`p:${p}`, `p:${p}|co:${viewer}`],
      ownerSubjects: [`p:${p}`],
      choose: (owners) => [owners.get(`p:${p}`) === viewer ? `p:${p}` : `p:${p}|co:${viewer}`],
    };
  }
  return fixed([`co:${viewer}`, `po:${viewer}`]);
}

/** Adds the day counts of the chosen grains into the answer, within from/to, oldest day first. */
export function sumStats(grains: GrainDays[], range: Pick<StatsFilter, 'from' | 'to'>): StatsAnswer {
  const byDay = new Map<string, DayFigures>();
  const answer: StatsAnswer = { adRequests: 0, confirmedDeliveries: 0, clickedLinks: 0, unfilledAdRequests: 0, days: [] };
  for (const days of grains) {
    for (const [date, counts] of Object.entries(days)) {
      if ((range.from !== undefined && date < range.from) || (range.to !== undefined && date > range.to)) continue;
      for (const kind of FIGURE_KINDS) {
        const count = counts[kind] ?? 0;
        if (count === 0) continue;
        let day = byDay.get(date);
        if (!day) {
          day = { date, adRequests: 0, confirmedDeliveries: 0, clickedLinks: 0, unfilledAdRequests: 0 };
          byDay.set(date, day);
        }
        day[kind as FigureKind] += count;
        answer[kind as FigureKind] += count;
      }
    }
  }
  answer.days = [...byDay.values()].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  return answer;
}

/** At most this many days between `from` and `to` of an hourly answer (API.md). */
export const MAX_HOURLY_SPAN_DAYS = 7;

export type GranularityResult = { ok: true; granularity: 'day' | 'hour' } | { ok: false; code: string; detail: string };

/**
 * `granularity`: `day` (the default) or `hour`, which needs `from` and `to` at most 7 days apart, within
 * the days whose hourly figures are kept at `now` (HOURLY_RETENTION_DAYS).
 */
export function parseGranularity(query: Record<string, unknown>, filter: Pick<StatsFilter, 'from' | 'to'>, now: Date): GranularityResult {
  const raw = query.granularity;
  if (raw === undefined || raw === '' || raw === 'day') return { ok: true, granularity: 'day' };
  if (raw !== 'hour') return { ok: false, code: 'invalid_granularity', detail: 'granularity must be day or hour' };
  if (filter.from === undefined || filter.to === undefined || Date.parse(filter.to) - Date.parse(filter.from) > MAX_HOURLY_SPAN_DAYS * DAY_MS) {
    return { ok: false, code: 'invalid_hour_range', detail: `granularity=hour needs from and to, at most ${MAX_HOURLY_SPAN_DAYS} days apart` };
  }
  const firstKept = firstKeptHourlyDay(now);
  if (filter.from < firstKept) return { ok: false, code: 'hours_not_kept', detail: `hourly figures are kept from ${firstKept} on; ask for days before it` };
  return { ok: true, granularity: 'hour' };
}

/** The ISO instants of every hour of the UTC days from `from` to `to`, inclusive. */
function hoursOfDays(from: string, to: string): string[] {
  const hours: string[] = [];
  const end = Date.parse(`${to}T00:00:00.000Z`) + DAY_MS;
  for (let at = Date.parse(`${from}T00:00:00.000Z`); at < end; at += HOUR_MS) hours.push(new Date(at).toISOString());
  return hours;
}

/** Adds the hour counts (`YYYY-MM-DDTHH`) of the chosen grains into the answer: every hour of the days from..to, zeros included. */
export function sumHours(grains: HourCounts[], range: { from: string; to: string }): HourlyStatsAnswer {
  const answer: HourlyStatsAnswer = { adRequests: 0, confirmedDeliveries: 0, clickedLinks: 0, unfilledAdRequests: 0, hours: [] };
  answer.hours = hoursOfDays(range.from, range.to).map((hour) => {
    const figures: HourFigures = { hour, adRequests: 0, confirmedDeliveries: 0, clickedLinks: 0, unfilledAdRequests: 0 };
    for (const counts of grains) for (const kind of FIGURE_KINDS) figures[kind as FigureKind] += counts[hour.slice(0, 13)]?.[kind] ?? 0;
    for (const kind of FIGURE_KINDS) answer[kind as FigureKind] += figures[kind as FigureKind];
    return figures;
  });
  return answer;
}

/** Owners of the plan's subjects: Redis' record, else the one every stored document about them names. */
export function ownersOf(subjects: string[], counted: Map<string, string>, documents: Array<{ campaignOwnerAccountId?: string; publisherOwnerAccountId?: string }>): Map<string, string> {
  const owners = new Map(counted);
  for (const subject of subjects) {
    const field = subject.startsWith('c:') ? 'campaignOwnerAccountId' : 'publisherOwnerAccountId';
    const owner = documents.map((document) => document[field]).find(Boolean);
    if (owner && !owners.has(subject)) owners.set(subject, owner);
  }
  return owners;
}
