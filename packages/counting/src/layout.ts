/** What is counted and where: kinds, grains, fields, Redis keys (README.md). Pure. */

export const DEFAULT_INTERVAL_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;
/** A day document's hours are kept this many days after its day, then unset. */
export const HOURLY_RETENTION_DAYS = 35;
/** A counted-once set outlives the last token of its hour (one hour after the hour ends) by this much. */
export const ONCE_MARGIN_MS = 15 * 60_000;

export const TOTAL_KINDS = ['adRequests', 'confirmedDeliveries', 'clickedLinks'] as const;
export type TotalKind = (typeof TOTAL_KINDS)[number];
/** Ad requests answered 204, for a publisher's fill rate: not one of SPEC.md's totals. */
export const UNFILLED_KIND = 'unfilledAdRequests';
/** Visits of a click link that redirect but are not clicks: kept for the network only. */
export type FilteredVisit = 'head' | 'preview_agent';
export type CountKind = TotalKind | typeof UNFILLED_KIND | `filtered_${FilteredVisit}`;

export interface CountedAllocation {
  campaignId: number;
  publisherId: number;
  campaignOwnerAccountId: string;
  publisherOwnerAccountId: string;
  /** Its UTC day is the day the fact counts on. */
  allocatedAt: Date;
}

/** An ad request answered 204. */
export interface UnfilledAdRequest {
  publisherId: number;
  publisherOwnerAccountId: string;
  requestedAt: Date;
}

export const dayOf = (at: Date): string => at.toISOString().slice(0, 10);
export const firstKeptHourlyDay = (now: Date): string => dayOf(new Date(now.getTime() - (HOURLY_RETENTION_DAYS - 1) * DAY_MS));
export const intervalEndOf = (at: Date, lengthMs: number): number => (Math.floor(at.getTime() / lengthMs) + 1) * lengthMs;
export const hourOf = (at: Date): number => Math.floor(at.getTime() / HOUR_MS);
/** The instant from which the counted-once set of `hour` is no longer needed. */
export const onceSetEnd = (hour: number): number => (hour + 2) * HOUR_MS + ONCE_MARGIN_MS;

export function grainsOf(allocation: CountedAllocation, kind: CountKind): string[] {
  if (kind.startsWith('filtered_')) return ['all'];
  const { campaignId: c, publisherId: p, campaignOwnerAccountId: co, publisherOwnerAccountId: po } = allocation;
  const grains = ['all', `co:${co}`, `c:${c}`, `p:${p}`, `cp:${c}:${p}`, `c:${c}|po:${po}`, `p:${p}|co:${co}`];
  // Selection never shows an account its own campaigns; should it happen, the fact counts under co: alone,
  // so that "own records" = co: + po: stays exact.
  if (po !== co) grains.push(`po:${po}`);
  return grains;
}

export function unfilledGrainsOf(request: UnfilledAdRequest): string[] {
  return ['all', `p:${request.publisherId}`, `po:${request.publisherOwnerAccountId}`];
}

/** A day field: `<YYYY-MM-DD>|<kind>`; an hour field: `<YYYY-MM-DD>T<HH>|<kind>`. */
export const fieldOf = (day: string, kind: string): string => `${day}|${kind}`;
export const parseField = (field: string): { day: string; kind: string } | null => (field[10] === '|' ? { day: field.slice(0, 10), kind: field.slice(11) } : null);
export const hourFieldOf = (at: Date, kind: string): string => `${at.toISOString().slice(0, 13)}|${kind}`;

export function parseHourField(field: string): { day: string; hour: string; kind: string } | null {
  if (field[10] !== 'T' || field[13] !== '|') return null;
  return { day: field.slice(0, 10), hour: field.slice(11, 13), kind: field.slice(14) };
}

/** Per hour (HH within a day's document, YYYY-MM-DDTHH across days), per kind, a count. */
export type HourCounts = Record<string, Record<string, number>>;

/**
 * Redis names under a deployment prefix (README.md). An interval's (or a fold's) set `<prefix>grains` lists
 * its grains, and the hash `<prefix>g:<grain>` holds one.
 */
export function countKeys(prefix: string) {
  const base = `${prefix}counts:`;
  return {
    ...{ base, openIntervals: `${base}intervals`, pendingFolds: `${base}folds`, appliedFolds: `${base}applied`, foldSequence: `${base}seq` },
    ...{ owners: `${base}owners`, passGrains: `${base}pass-grains`, onceHours: `${base}once-hours` },
    intervalPrefix: (interval: number) => `${base}i:${interval}:`,
    foldPrefix: (fold: number) => `${base}f:${fold}:`,
    /** The allocations of `hour` whose `kind` counted (`test`: seen, for sandbox allocations). */
    once: (kind: 'confirmed' | 'clicked', hour: number, test = false) => `${base}${test ? 'test-once' : 'once'}:${kind}:${hour}`,
    /** The ids of the calls counted in the minute of `now`, so that a resent call counts once. */
    recent: (what: 'once' | 'ads', now: Date) => `${base}recent-${what}:${Math.floor(now.getTime() / 60_000)}`,
    /** A platform's live key window or (`test`) the one window of every sandbox key of an account. */
    adRequestLimit: (id: number | string, test = false) => (test ? `${prefix}ratelimit:ad-test:a:${id}` : `${prefix}ratelimit:ad:${id}`),
  };
}
export type CountKeys = ReturnType<typeof countKeys>;

export const LEVELS = ['network', 'campaignOwner', 'publisherOwner', 'campaign', 'publisher', 'campaignPublisher', 'campaignOnOwnersPublishers', 'publisherOnOwnersCampaigns', 'placement'] as const;
export type Level = (typeof LEVELS)[number];

export interface GrainFields {
  level: Level;
  campaignId: number | null;
  publisherId: number | null;
  /** The owner a grain is split by, null for the others. */
  accountId: string | null;
  placementId: string | null;
}

/** `c:7|po:a` is `{level: 'campaignOnOwnersPublishers', campaignId: 7, accountId: 'a'}`. */
export function grainFieldsOf(grain: string): GrainFields {
  const none: GrainFields = { level: 'network', campaignId: null, publisherId: null, accountId: null, placementId: null };
  const [head = '', tail] = grain.split('|');
  const [kind, first = '', second] = head.split(':');
  const account = tail?.slice(3) ?? null;
  if (kind === 'co' || kind === 'po') return { ...none, level: kind === 'co' ? 'campaignOwner' : 'publisherOwner', accountId: first };
  if (kind === 'c') return { ...none, level: account === null ? 'campaign' : 'campaignOnOwnersPublishers', campaignId: Number(first), accountId: account };
  if (kind === 'p') return { ...none, level: account === null ? 'publisher' : 'publisherOnOwnersCampaigns', publisherId: Number(first), accountId: account };
  if (kind === 'cp') return { ...none, level: 'campaignPublisher', campaignId: Number(first), publisherId: Number(second) };
  if (kind === 'pl') return { ...none, level: 'placement', placementId: head.slice(3) };
  return none;
}

/** A day document's `_id`: its key fields' values joined. */
export function dayKeyOf(fields: GrainFields, day: string): string {
  return [fields.level, fields.campaignId ?? '', fields.publisherId ?? '', fields.accountId ?? '', fields.placementId ?? '', day].join('|');
}

/** Inclusive UTC dates, YYYY-MM-DD; absent means from the first day counted, or up to the last. */
export type DayRange = { from?: string; to?: string };
/** A range of two weeks or more as parts of a week or more each, at most four, in order; any other range whole. */
export function dayPartsOf({ from, to }: DayRange): DayRange[] {
  const days = from === undefined || to === undefined ? 0 : (Date.parse(to) - Date.parse(from)) / DAY_MS + 1;
  const parts = Math.min(4, Math.floor(days / 7));
  if (parts < 2) return [{ from, to }];
  const dayAt = (offset: number) => dayOf(new Date(Date.parse(from!) + offset * DAY_MS));
  return Array.from({ length: parts }, (_, part) => ({ from: dayAt(Math.floor((part * days) / parts)), to: dayAt(Math.floor(((part + 1) * days) / parts) - 1) }));
}

/** `<YYYY-MM-DD>` -> kind -> count. */
export type GrainDays = Record<string, Record<string, number>>;
/** The owners a document names of the campaign and the platform its grain names. */
export type Owners = { campaignOwnerAccountId?: string; publisherOwnerAccountId?: string };
/** A grain's stored totals over the days read, its hours (`YYYY-MM-DDTHH`, when read with them), and per day its document's `lastFold`. */
export type StoredGrain = Owners & { days: GrainDays; hours: HourCounts; lastFolds: Record<string, number> };
/** A day document as the breakdowns and the report read it (its hours, HH -> kind -> count, when read with them). */
export type StoredDay = Owners & { campaignId: number | null; publisherId: number | null; day: string; lastFold: number; counts: Record<string, number>; hours?: HourCounts };
