/**
 * The totals of SPEC.md ("Delivery record and counters") and API.md `GET /api/workspace/stats`: query
 * validation, who sees which records, and folding per-day counts into the answer. Pure.
 */

export type RecordKind = 'allocation' | 'confirmation' | 'click';

export interface StatsFilter {
  campaignId?: number;
  publisherId?: number;
  /** Inclusive UTC dates, YYYY-MM-DD. */
  from?: string;
  to?: string;
  /** Records of campaigns or publishers owned by this account; undefined for an administrator (all). */
  visibleTo?: string;
}

export interface DayFigures {
  date: string;
  adRequests: number;
  confirmedDeliveries: number;
  clickedLinks: number;
}

export interface StatsAnswer {
  adRequests: number;
  confirmedDeliveries: number;
  clickedLinks: number;
  days: DayFigures[];
}

export interface DayKindCount {
  day: string;
  kind: string;
  count: number;
}

export type StatsQueryResult = { ok: true; filter: Omit<StatsFilter, 'visibleTo'> } | { ok: false; code: string; detail: string };

/** The UTC calendar date of an instant. */
export function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

function positiveId(raw: string): number | null {
  if (!/^[1-9][0-9]{0,15}$/.test(raw)) return null;
  const value = Number(raw);
  return Number.isSafeInteger(value) ? value : null;
}

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
    const id = raw === null ? null : positiveId(raw);
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

const FIELD_OF_KIND: Record<RecordKind, keyof Omit<DayFigures, 'date'>> = {
  allocation: 'adRequests',
  confirmation: 'confirmedDeliveries',
  click: 'clickedLinks',
};

/** Folds (day, kind, count) rows into the totals and the days that have any figure, oldest first. */
export function foldStats(rows: DayKindCount[]): StatsAnswer {
  const byDay = new Map<string, DayFigures>();
  const answer: StatsAnswer = { adRequests: 0, confirmedDeliveries: 0, clickedLinks: 0, days: [] };
  for (const row of rows) {
    const field = FIELD_OF_KIND[row.kind as RecordKind];
    if (!field) continue;
    let day = byDay.get(row.day);
    if (!day) {
      day = { date: row.day, adRequests: 0, confirmedDeliveries: 0, clickedLinks: 0 };
      byDay.set(row.day, day);
    }
    day[field] += row.count;
    answer[field] += row.count;
  }
  answer.days = [...byDay.values()].sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0));
  return answer;
}
