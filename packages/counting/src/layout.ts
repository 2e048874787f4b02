/**
 * What the counting pipeline counts and where (docs/counting.md). Pure: names and arithmetic only.
 *
 * A counted fact (an ad request answered 200, a first confirmation, a first counted click, a filtered
 * visit) is attributed to the UTC day of its allocation and added to every *grain* that a stats filter
 * may ask for, so that any totals read is a handful of point lookups, never a scan:
 *
 *   all                 the whole network (administrators)
 *   co:<account>        records of campaigns the account owns
 *   po:<account>        records of publishers the account owns
 *   c:<campaign>        one campaign            p:<publisher>         one publisher
 *   cp:<c>:<p>          one campaign on one publisher
 *   c:<c>|po:<account>  one campaign on the publishers of an account (an owner filtering by a campaign of others)
 *   p:<p>|co:<account>  one publisher showing the campaigns of an account
 *
 * Counts gather in Redis per *interval* of the writer's clock, one hash per grain, until a folder moves
 * each closed interval into MongoDB. An interval is named by the instant it ends (ms since the epoch), so
 * writers configured with different lengths never mix their intervals, and the folder needs no length.
 */

/** How long counts gather before they can be folded (COUNT_INTERVAL_MS): longer means fewer updates. */
export const DEFAULT_INTERVAL_MS = 60_000;

/** The three totals of SPEC.md, by their names in the stats answer. */
export const TOTAL_KINDS = ['adRequests', 'confirmedDeliveries', 'clickedLinks'] as const;
export type TotalKind = (typeof TOTAL_KINDS)[number];

/**
 * Ad requests answered 204 (within the limit, no creative qualified): beside the three totals, so a
 * publisher sees its fill rate. Not one of SPEC.md's totals; counted for the publisher's grains only.
 */
export const UNFILLED_KIND = 'unfilledAdRequests';
export type UnfilledKind = typeof UNFILLED_KIND;

/** Visits of a click link that redirect but are not clicks: informative only, kept for the network. */
export type FilteredVisit = 'head' | 'preview_agent';
export type CountKind = TotalKind | UnfilledKind | `filtered_${FilteredVisit}`;

/** Who and what a fact is about; every fact of one allocation carries the same. */
export interface CountedAllocation {
  campaignId: number;
  publisherId: number;
  campaignOwnerAccountId: string;
  publisherOwnerAccountId: string;
  /** When the allocation was made: its UTC day is the day the fact counts on. */
  allocatedAt: Date;
}

/** The UTC calendar date of an instant, YYYY-MM-DD. */
export function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The end of the interval of `lengthMs` that holds `at`: the interval's name. */
export function intervalEndOf(at: Date, lengthMs: number): number {
  return (Math.floor(at.getTime() / lengthMs) + 1) * lengthMs;
}

/** Grains a fact of this allocation counts in. Filtered visits count for the whole network only. */
export function grainsOf(allocation: CountedAllocation, kind: CountKind): string[] {
  if (kind.startsWith('filtered_')) return ['all'];
  const { campaignId: c, publisherId: p, campaignOwnerAccountId: co, publisherOwnerAccountId: po } = allocation;
  const grains = ['all', `co:${co}`, `c:${c}`, `p:${p}`, `cp:${c}:${p}`, `c:${c}|po:${po}`, `p:${p}|co:${co}`];
  // An account never sees its own campaigns on its own publishers (selection excludes them); should it
  // happen anyway, counting the fact once under co: keeps "own records" = co: + po: exact.
  if (po !== co) grains.push(`po:${po}`);
  return grains;
}

/** An ad request answered 204: about a publisher, no campaign. */
export interface UnfilledAdRequest {
  publisherId: number;
  publisherOwnerAccountId: string;
  requestedAt: Date;
}

/** Grains an unfilled ad request counts in: those about its publisher (no campaign filter can name it). */
export function unfilledGrainsOf(request: UnfilledAdRequest): string[] {
  return ['all', `p:${request.publisherId}`, `po:${request.publisherOwnerAccountId}`];
}

/** The field of a grain's interval hash: `<day>|<kind>`. */
export function fieldOf(day: string, kind: string): string {
  return `${day}|${kind}`;
}

export function parseField(field: string): { day: string; kind: string } | null {
  const bar = field.indexOf('|');
  if (bar !== 10) return null;
  return { day: field.slice(0, 10), kind: field.slice(11) };
}

/** Owners of the campaigns and publishers counted, as `c:<id>` / `p:<id>` -> account. */
export function ownerFields(allocation: CountedAllocation): [string, string, string, string] {
  return [`c:${allocation.campaignId}`, allocation.campaignOwnerAccountId, `p:${allocation.publisherId}`, allocation.publisherOwnerAccountId];
}

/** Redis names of the pipeline under a deployment prefix (`{i}` an interval, `{s}` a fold's number, `{h}` an hour of allocation). */
export class CountKeys {
  readonly base: string;
  /** Sorted set of intervals holding counts not yet claimed by a fold. */
  readonly openIntervals: string;
  /** Sorted set of claimed folds not yet applied to MongoDB, by number. */
  readonly pendingFolds: string;
  /** Sorted set of applied folds kept a little longer for readers, scored by when they were applied. */
  readonly appliedFolds: string;
  /** The number of the last fold claimed (an interval's end, or just above the fold before). */
  readonly foldSequence: string;
  /** Hash of the owners of the campaigns and platforms counted (`c:<id>`, `p:<id>` -> account). */
  readonly owners: string;
  /** Set of the grains of the folds a folder's pass is applying, walked in chunks. */
  readonly passGrains: string;
  /** Sorted set of the hours whose counted-once sets exist, for the sweep. */
  readonly onceHours: string;

  constructor(private readonly prefix: string) {
    const base = (this.base = `${prefix}counts:`);
    [this.openIntervals, this.pendingFolds, this.appliedFolds, this.foldSequence] = [`${base}intervals`, `${base}folds`, `${base}applied`, `${base}seq`];
    [this.owners, this.passGrains, this.onceHours] = [`${base}owners`, `${base}pass-grains`, `${base}once-hours`];
  }

  intervalPrefix(interval: number): string {
    return `${this.base}i:${interval}:`;
  }
  foldPrefix(sequence: number): string {
    return `${this.base}f:${sequence}:`;
  }
  /** Set of the allocations whose `kind` was counted (`test-once`: seen, for test allocations), for allocations of hour `hour`. */
  once(kind: 'confirmed' | 'clicked', hour: number, test = false): string {
    return `${this.base}${test ? 'test-once' : 'once'}:${kind}:${hour}`;
  }
  /** Set of the attempt ids of counted-once calls (`ads`: of the ad requests counted) in the minute of `now`, for resent calls. */
  recent(what: 'once' | 'ads', now: Date): string {
    return `${this.base}recent-${what}:${Math.floor(now.getTime() / 60_000)}`;
  }
  /** The ad request window of a platform's live key, or (`test`) the one window of every sandbox key of an account: test keys are free to make. */
  adRequestLimit(id: number | string, test = false): string {
    return test ? `${this.prefix}ratelimit:ad-test:a:${id}` : `${this.prefix}ratelimit:ad:${id}`;
  }
}

/** Of an interval's or a fold's hashes, the one listing its grains is `<prefix>grains`; each grain's is `<prefix>g:<grain>`. */
export const GRAINS_SUFFIX = 'grains';
export const GRAIN_SUFFIX = 'g:';

/** The campaign and publisher a grain is about, when it names them (`c:`, `p:`, `cp:` grains). */
export function subjectsOf(grain: string): { campaignId?: number; publisherId?: number } {
  const [head] = grain.split('|');
  const parts = (head ?? '').split(':');
  if (parts[0] === 'c') return { campaignId: Number(parts[1]) };
  if (parts[0] === 'p') return { publisherId: Number(parts[1]) };
  if (parts[0] === 'cp') return { campaignId: Number(parts[1]), publisherId: Number(parts[2]) };
  return {};
}

/** Which grain a MongoDB document counts, as the fields a query names. */
export const LEVELS = ['network', 'campaignOwner', 'publisherOwner', 'campaign', 'publisher', 'campaignPublisher', 'campaignOnOwnersPublishers', 'publisherOnOwnersCampaigns', 'placement'] as const;
export type Level = (typeof LEVELS)[number];

export interface GrainFields {
  level: Level;
  campaignId: number | null;
  publisherId: number | null;
  /** The account a grain is split by (a campaign or platform owner), null for the others. */
  accountId: string | null;
  placementId: string | null;
}

/** The real fields of a grain in MongoDB (`c:7|po:a` is `{level: 'campaignOnOwnersPublishers', campaignId: 7, accountId: 'a'}`). */
export function grainFieldsOf(grain: string): GrainFields {
  const none: GrainFields = { level: 'network', campaignId: null, publisherId: null, accountId: null, placementId: null };
  const [head = '', tail] = grain.split('|');
  const [kind, first = '', second] = head.split(':');
  const account = tail?.slice(3) ?? null;
  switch (kind) {
    case 'co':
      return { ...none, level: 'campaignOwner', accountId: first };
    case 'po':
      return { ...none, level: 'publisherOwner', accountId: first };
    case 'c':
      return account === null ? { ...none, level: 'campaign', campaignId: Number(first) } : { ...none, level: 'campaignOnOwnersPublishers', campaignId: Number(first), accountId: account };
    case 'p':
      return account === null ? { ...none, level: 'publisher', publisherId: Number(first) } : { ...none, level: 'publisherOnOwnersCampaigns', publisherId: Number(first), accountId: account };
    case 'cp':
      return { ...none, level: 'campaignPublisher', campaignId: Number(first), publisherId: Number(second) };
    case 'pl':
      return { ...none, level: 'placement', placementId: head.slice(3) };
    default:
      return none;
  }
}

/** A day document's `_id`: its key fields' values joined. */
export function dayKeyOf(fields: GrainFields, day: string): string {
  return [fields.level, fields.campaignId ?? '', fields.publisherId ?? '', fields.accountId ?? '', fields.placementId ?? '', day].join('|');
}
