/**
 * The `lists` phase: the workspace's paged lists and the audit at network scale. 10,000 campaigns (100
 * advertisers with 100 each) and 2,000 platforms (20 owners with 100 each) are stored straight through
 * their stores (`VersionedStore` of `@pilot/storage`, as the services write them: the record's document and its
 * history entries, two per record), then the calls people make are timed one at a time through the gateway: the
 * first page and a deep page of each list, for an administrator and for an owner, with a status filter,
 * with a search (`q`), and the audit's first and deep pages; then the work tables' pages, each page's calls
 * at once (its rows, their figures of 30 days, the count of matches). What is seeded is removed afterwards.
 */
import { performance } from 'node:perf_hooks';
import type { Db } from 'mongodb';
import { encodeCursor } from '../../packages/platform/src';
import { dayKeyOf, grainFieldsOf } from '../../packages/counting/src';
import { connectMongo, VersionedStore } from '../../packages/storage/src';
import { percentile } from './load';
import type { OperationCost } from './per-operation';
import type { BenchSystem } from './system';
import type { Browser } from './workspace';

export const LIST_ADVERTISERS = 100;
export const LIST_PLATFORM_OWNERS = 20;
const PER_ACCOUNT = 100;
/** Seeded ids start here, far above what the set-up creates, and are removed by id afterwards. */
const FIRST_SEEDED_ID = 20_000_000;
/** Seeded accounts: advertisers 50000..50099, platform owners 51000..51019. */
export const advertiserId = (index: number) => String(50_000 + index);
export const platformOwnerId = (index: number) => String(51_000 + index);
const STATUSES = ['draft', 'submitted', 'approved', 'paused', 'rejected'] as const;
const BATCH = 1000;
/** The seeded records were created over the 30 days before the run, one every few minutes. */
const SEED_SPAN_MS = 30 * 24 * 3_600_000;

interface Seeded {
  campaigns: number;
  platforms: number;
  historyEntries: number;
  seconds: number;
}

type AnyState = { ownerAccountId: string } & Record<string, unknown>;

async function insertRecords(store: VersionedStore<AnyState>, entity: string, count: number, stateOf: (index: number) => AnyState): Promise<number> {
  const start = Date.now() - SEED_SPAN_MS;
  let entries = 0;
  for (let from = 0; from < count; from += BATCH) {
    const indexes = Array.from({ length: Math.min(BATCH, count - from) }, (_, offset) => from + offset);
    const records = indexes.map((index) => {
      const id = FIRST_SEEDED_ID + index;
      const createdAt = new Date(start + Math.floor((index * SEED_SPAN_MS) / count));
      // Every tenth record shares its creation instant with the one before: ties are broken by id.
      if (index % 10 === 1) createdAt.setTime(start + Math.floor(((index - 1) * SEED_SPAN_MS) / count));
      const updatedAt = new Date(createdAt.getTime() + 60_000);
      return { id, state: stateOf(index), createdAt, updatedAt };
    });
    await store.current.insertMany(records.map(({ id, state, createdAt, updatedAt }) => ({ ...state, _id: id, version: 2, createdAt, updatedAt })) as never[], { ordered: false });
    const history = records.flatMap(({ id, state, createdAt, updatedAt }) => [
      { _id: VersionedStore.entryId(id, 1), entity, entityId: id, version: 1, ownerAccountId: state.ownerAccountId, at: createdAt, actorAccountId: state.ownerAccountId, action: 'created', from: null, to: 'draft', reason: null, state: { ...state, status: 'draft' }, outbox: [] },
      { _id: VersionedStore.entryId(id, 2), entity, entityId: id, version: 2, ownerAccountId: state.ownerAccountId, at: updatedAt, actorAccountId: state.ownerAccountId, action: 'seeded', from: 'draft', to: state.status, reason: null, state, outbox: [] },
    ]);
    await store.history.insertMany(history as never[], { ordered: false });
    entries += history.length;
  }
  return entries;
}

/**
 * The state of the `index`th seeded campaign: one of 100 advertisers, statuses in turn, one in seven named
 * "Spring Sale" (what the searches look for).
 */
export function listedCampaign(campaignId: number, index: number): { ownerAccountId: string } & Record<string, unknown> {
  return {
    campaignId,
    ownerAccountId: advertiserId(index % LIST_ADVERTISERS),
    status: STATUSES[index % STATUSES.length],
    name: `Listed campaign ${index} ${index % 7 === 0 ? 'Spring Sale' : 'evergreen'}`,
    format: 'bot',
    title: `Learn a language, lesson ${index}`,
    text: 'Short daily lessons.',
    destinationUrl: `https://advertiser.example/landing?l=${index}`,
    buttonText: 'Try it',
    imageUrl: null,
    language: 'en',
    replaces: null,
    rejectionReason: null,
    pauseReason: null,
  };
}

/** Stores the campaigns and platforms of the phase, with their history, straight through their stores. */
export async function seedLists(system: BenchSystem): Promise<Seeded> {
  const started = performance.now();
  const campaignCount = LIST_ADVERTISERS * PER_ACCOUNT;
  const platformCount = LIST_PLATFORM_OWNERS * PER_ACCOUNT;
  const campaignDb = await connectMongo({ url: system.mongoUrl, dbName: system.dbOf('campaign') });
  const identityDb = await connectMongo({ url: system.mongoUrl, dbName: system.dbOf('publisher-identity') });
  try {
    const campaigns = new VersionedStore<AnyState>(campaignDb.db!, 'campaign', 'campaigns', 'campaign_history');
    const platforms = new VersionedStore<AnyState>(identityDb.db!, 'publisher', 'publishers', 'publisher_history');
    let historyEntries = await insertRecords(campaigns, 'campaign', campaignCount, (index) => listedCampaign(FIRST_SEEDED_ID + index, index));
    historyEntries += await insertRecords(platforms, 'publisher', platformCount, (index) => ({
      ownerAccountId: platformOwnerId(index % LIST_PLATFORM_OWNERS),
      type: 'bot',
      link: `https://t.me/listed_${index}_${index % 7 === 0 ? 'news' : 'misc'}_bot`,
      status: STATUSES[index % STATUSES.length],
      keyHash: null,
      keyCreatedAt: null,
      revokedKeyHashes: [],
      rejectionReason: null,
      pauseReason: null,
      testKeyHash: null,
      testKeyCreatedAt: null,
    }));
    return { campaigns: campaignCount, platforms: platformCount, historyEntries, seconds: (performance.now() - started) / 1000 };
  } finally {
    await campaignDb.close();
    await identityDb.close();
  }
}

/** Removes what seedLists and seedFigures stored. */
export async function removeLists(system: BenchSystem): Promise<void> {
  const tracking = await connectMongo({ url: system.mongoUrl, dbName: system.dbOf('tracking') });
  try {
    await tracking.db!.collection('counts_days').deleteMany({ $or: [{ campaignId: { $gte: FIRST_SEEDED_ID } }, { publisherId: { $gte: FIRST_SEEDED_ID } }] }, { timeoutMS: 0 });
  } finally {
    await tracking.close();
  }
  for (const [service, current, history] of [
    ['campaign', 'campaigns', 'campaign_history'],
    ['publisher-identity', 'publishers', 'publisher_history'],
  ] as const) {
    const connection = await connectMongo({ url: system.mongoUrl, dbName: system.dbOf(service) });
    try {
      await connection.db!.collection(current).deleteMany({ _id: { $gte: FIRST_SEEDED_ID } as never }, { timeoutMS: 0 });
      await connection.db!.collection(history).deleteMany({ entityId: { $gte: FIRST_SEEDED_ID } }, { timeoutMS: 0 });
    } finally {
      await connection.close();
    }
  }
}

export interface ListTiming {
  call: string;
  who: string;
  samples: number[];
  /** Answers other than 200 (a 504 after the gateway's 10 s counts at its duration). */
  errors: number;
  /** What the call is held to: a page 50 ms, a search 100 ms (p95). */
  targetMs: number;
  /** What one call (a work table: one page's calls) cost each process. */
  cost: OperationCost;
}

/** Runs `work` (its `operations` calls) and says what each cost every process (per-operation.ts). */
export type Meter = <T>(work: () => Promise<T>, operations: number) => Promise<{ result: T; cost: OperationCost }>;

/** Where a deep page starts: a cursor made from the stored documents (the bench reads them itself rather than paging there through the API). */
export interface DeepCursors {
  /** After the 9,050th newest seeded campaign. */
  campaigns: string;
  /** After the 1,750th newest seeded campaign named "Spring Sale" (of 1,429: the search's 25th page would start at its 1,200th). */
  campaignSearch: string;
  /** After the 50th newest campaign of the first advertiser (its second page). */
  ownerCampaigns: string;
  /** After the 1,750th newest seeded platform. */
  platforms: string;
  /** After the 5,000th newest campaign history entry. */
  audit: string;
  /** After the 150th newest history entry of the first advertiser. */
  ownerAudit: string;
}

async function listCursor(db: Db, collection: string, filter: Record<string, unknown>, skip: number): Promise<string> {
  const [document] = await db.collection(collection).find(filter, { projection: { createdAt: 1 } }).sort({ createdAt: -1, _id: -1 }).skip(skip).limit(1).toArray();
  if (!document) throw new Error(`${collection}: fewer than ${skip + 1} records`);
  return encodeCursor([document.createdAt as Date, document._id as unknown as number]);
}

async function auditCursor(db: Db, entity: string, filter: Record<string, unknown>, skip: number): Promise<string> {
  const [entry] = await db.collection(`${entity}_history`).find(filter, { projection: { at: 1 } }).sort({ at: -1, _id: -1 }).skip(skip).limit(1).toArray();
  if (!entry) throw new Error(`${entity}_history: fewer than ${skip + 1} entries`);
  return encodeCursor([entry.at as Date, `${entity}/${String(entry._id)}`]);
}

/** The cursors of the deep pages, from the stored documents. */
export async function deepCursors(system: BenchSystem): Promise<DeepCursors> {
  // Sorting and skipping thousands of documents takes the local store seconds: no 10 s deadline here.
  const campaignDb = await connectMongo({ url: system.mongoUrl, dbName: system.dbOf('campaign'), operationTimeoutMS: 300_000 });
  const identityDb = await connectMongo({ url: system.mongoUrl, dbName: system.dbOf('publisher-identity'), operationTimeoutMS: 300_000 });
  try {
    const campaigns = campaignDb.db!;
    const seeded = { _id: { $gte: FIRST_SEEDED_ID } };
    return {
      campaigns: await listCursor(campaigns, 'campaigns', seeded, 9_049),
      campaignSearch: await listCursor(campaigns, 'campaigns', { ...seeded, name: /spring sale/i }, 1_199),
      ownerCampaigns: await listCursor(campaigns, 'campaigns', { ownerAccountId: advertiserId(0) }, 49),
      platforms: await listCursor(identityDb.db!, 'publishers', seeded, 1_749),
      audit: await auditCursor(campaigns, 'campaign', {}, 4_999),
      ownerAudit: await auditCursor(campaigns, 'campaign', { ownerAccountId: advertiserId(0) }, 149),
    };
  } finally {
    await campaignDb.close();
    await identityDb.close();
  }
}

async function timed(who: Browser, path: string, calls: number): Promise<{ samples: number[]; errors: number }> {
  const samples: number[] = [];
  let errors = 0;
  for (let call = 0; call < calls; call += 1) {
    const started = performance.now();
    const answer = await who.call('GET', path);
    samples.push(performance.now() - started);
    if (answer.status !== 200) errors += 1;
  }
  return { samples, errors };
}

/** Times each call `calls` times, sequentially; a deep page is asked for with a cursor of `deep`. */
export async function timeLists(admin: Browser, advertiser: Browser, platformOwner: Browser, deep: DeepCursors, calls: number, meter: Meter): Promise<ListTiming[]> {
  const timings: ListTiming[] = [];
  const measure = async (call: string, who: string, browser: Browser, path: string, targetMs: number, cursor?: string) => {
    const target = cursor ? `${path}&cursor=${encodeURIComponent(cursor)}` : path;
    const { result, cost } = await meter(() => timed(browser, target, calls), calls);
    timings.push({ call, who, ...result, targetMs, cost });
  };
  const campaigns = '/api/workspace/campaigns?limit=50';
  const platforms = '/api/workspace/publishers?limit=50';
  const audit = '/api/workspace/audit?limit=50';
  await measure('campaigns, first page', 'administrator', admin, campaigns, 50);
  await measure('campaigns, deep page (after 9,050)', 'administrator', admin, campaigns, 50, deep.campaigns);
  await measure('campaigns ?status=submitted, first page', 'administrator', admin, `${campaigns}&status=submitted`, 50);
  await measure('campaigns ?ownerAccountId, first page', 'administrator', admin, `${campaigns}&ownerAccountId=${advertiserId(0)}`, 50);
  await measure('campaigns ?q=spring sale, first page', 'administrator', admin, `${campaigns}&q=spring%20sale`, 100);
  await measure('campaigns ?q=spring sale, deep page (after 1,200)', 'administrator', admin, `${campaigns}&q=spring%20sale`, 100, deep.campaignSearch);
  await measure('campaigns, first page', 'owner (100 campaigns)', advertiser, campaigns, 50);
  await measure('campaigns, second page', 'owner (100 campaigns)', advertiser, campaigns, 50, deep.ownerCampaigns);
  await measure('campaigns ?q=spring sale', 'owner (100 campaigns)', advertiser, `${campaigns}&q=spring%20sale`, 100);
  await measure('platforms, first page', 'administrator', admin, platforms, 50);
  await measure('platforms, deep page (after 1,750)', 'administrator', admin, platforms, 50, deep.platforms);
  await measure('platforms ?q=news, first page', 'administrator', admin, `${platforms}&q=news`, 100);
  await measure('platforms, first page', 'owner (100 platforms)', platformOwner, platforms, 50);
  await measure('platforms ?q=news', 'owner (100 platforms)', platformOwner, `${platforms}&q=news`, 100);
  await measure('audit, first page', 'administrator', admin, audit, 50);
  await measure('audit, deep page (after 5,000 campaign entries)', 'administrator', admin, audit, 50, deep.audit);
  await measure('audit, first page', 'owner (100 campaigns)', advertiser, audit, 50);
  await measure('audit, deep page (after 150)', 'owner (100 campaigns)', advertiser, audit, 50, deep.ownerAudit);
  return timings;
}

/**
 * One sample of a work table's page: its calls as the page asks them, timed until the last answer: the
 * list's page and, on a first page, the count of matches at once; `then` follows the first answer with the
 * call that needs it (the figures of a page's records by `ids=`, or the records of a page sorted by a figure).
 */
async function timedPage(who: Browser, paths: string[], calls: number, then: (answer: Answer) => string | null): Promise<{ samples: number[]; errors: number }> {
  const samples: number[] = [];
  let errors = 0;
  for (let call = 0; call < calls; call += 1) {
    const started = performance.now();
    const [first = '', ...others] = paths;
    const followed = who.call('GET', first).then(async (answer) => {
      const next = then(answer);
      return next === null ? [answer] : [answer, await who.call('GET', next)];
    });
    const answers = (await Promise.all([followed, ...others.map(async (path) => [await who.call('GET', path)])])).flat();
    samples.push(performance.now() - started);
    if (answers.some((answer) => answer.status !== 200)) errors += 1;
  }
  return { samples, errors };
}

type Answer = { status: number; body: Record<string, unknown> };
const idsOf = (answer: Answer) => ((answer.body.items ?? []) as Array<{ id: number }>).map((item) => item.id);

/** A work table's page as the workspace asks it: its list call, then the figures of its records for the period. */
interface WorkPage {
  call: string;
  who: string;
  browser: Browser;
  by: 'campaign' | 'publisher';
  list: string;
  /** the list's count call, on a first page */
  count?: string;
}

/**
 * The work tables (the campaigns and platforms lists as the workspace draws them: 25 rows with their
 * figures of the last 30 days, once of the default 7, and the count of matches), each page's calls timed
 * together; p95 at most 50 ms.
 * Every seeded record has figures today, as a network where all are active; the records of the timed pages
 * have them on each of the 30 days (seedFigures).
 */
export async function timeWorkTables(system: BenchSystem, admin: Browser, advertiser: Browser, platformOwner: Browser, deep: DeepCursors, calls: number, meter: Meter): Promise<ListTiming[]> {
  const timings: ListTiming[] = [];
  const today = new Date().toISOString().slice(0, 10);
  const dayBefore = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
  const from = dayBefore(29);
  const figuresOf = (by: string, ids: number[], since = from) => `/api/workspace/stats/breakdown?by=${by}&from=${since}&to=${today}&ids=${ids.join(',')}&limit=${ids.length}`;
  const campaigns = '/api/workspace/campaigns?limit=25';
  const platforms = '/api/workspace/publishers?limit=25';
  const count = (list: string) => `${list.replace('limit=25', 'limit=1')}&count=true`;
  const pages: WorkPage[] = [
    { call: 'campaigns, first page with its count', who: 'administrator', browser: admin, by: 'campaign', list: campaigns, count: count(campaigns) },
    { call: 'campaigns, deep page (after 9,050)', who: 'administrator', browser: admin, by: 'campaign', list: `${campaigns}&cursor=${encodeURIComponent(deep.campaigns)}` },
    { call: 'campaigns oldest first, with its count', who: 'administrator', browser: admin, by: 'campaign', list: `${campaigns}&sort=oldest`, count: count(campaigns) },
    { call: 'campaigns ?status=submitted, with its count', who: 'administrator', browser: admin, by: 'campaign', list: `${campaigns}&status=submitted`, count: count(`${campaigns}&status=submitted`) },
    { call: 'campaigns, first page with its count', who: 'owner (100 campaigns)', browser: advertiser, by: 'campaign', list: campaigns, count: count(campaigns) },
    { call: 'platforms, first page with its count', who: 'administrator', browser: admin, by: 'publisher', list: platforms, count: count(platforms) },
    { call: 'platforms, first page with its count', who: 'owner (100 platforms)', browser: platformOwner, by: 'publisher', list: platforms, count: count(platforms) },
  ];
  const shown = { campaign: new Set<number>(), publisher: new Set<number>() };
  for (const { browser, by, list } of pages) for (const id of idsOf(await browser.call('GET', list))) shown[by].add(id);
  await seedFigures(system, shown);
  const page = async (call: string, who: string, browser: Browser, paths: string[], then: (answer: Answer) => string | null) => {
    const { result, cost } = await meter(() => timedPage(browser, paths, calls, then), calls);
    timings.push({ call: `work table: ${call}`, who, ...result, targetMs: 50, cost });
  };
  for (const { call, who, browser, by, list, count: counted } of pages) {
    await page(call, who, browser, counted ? [list, counted] : [list], (answer) => (idsOf(answer).length > 0 ? figuresOf(by, idsOf(answer)) : null));
  }
  // The workspace's default period: the last 7 days.
  await page('campaigns, first page with its count (the default 7 days)', 'administrator', admin, [campaigns, count(campaigns)], (answer) => (idsOf(answer).length > 0 ? figuresOf('campaign', idsOf(answer), dayBefore(6)) : null));
  await page('campaigns by requests (figures, then their records by id)', 'administrator', admin, [`/api/workspace/stats/breakdown?by=campaign&from=${from}&to=${today}&sort=adRequests&limit=25`], (answer) =>
    idsOf(answer).length > 0 ? `${campaigns}&ids=${idsOf(answer).join(',')}` : null,
  );
  return timings;
}

/**
 * The figures the folder would have written for the seeded records: each campaign's and platform's day
 * document of today and, for those in `shown`, of the 29 days before (their grains `c:<id>` and `p:<id>`,
 * what the work tables read), straight into tracking's `counts_days`.
 */
async function seedFigures(system: BenchSystem, shown: Record<'campaign' | 'publisher', Set<number>>): Promise<void> {
  const tracking = await connectMongo({ url: system.mongoUrl, dbName: system.dbOf('tracking'), operationTimeoutMS: 300_000 });
  try {
    const documents: Array<Record<string, unknown>> = [];
    const add = (grain: string, id: number, owner: Record<string, string>) => {
      for (let back = 0; back < (shown[grain === 'c' ? 'campaign' : 'publisher'].has(id) ? 30 : 1); back += 1) {
        const day = new Date(Date.now() - back * 86_400_000).toISOString().slice(0, 10);
        const fields = grainFieldsOf(`${grain}:${id}`);
        documents.push({ _id: dayKeyOf(fields, day), ...fields, day, ...owner, lastFold: 1, fence: 0, adRequests: 1 + (id % 13), confirmedDeliveries: id % 5, clickedLinks: id % 3 });
      }
    };
    for (let index = 0; index < LIST_ADVERTISERS * PER_ACCOUNT; index += 1) add('c', FIRST_SEEDED_ID + index, { campaignOwnerAccountId: advertiserId(index % LIST_ADVERTISERS) });
    for (let index = 0; index < LIST_PLATFORM_OWNERS * PER_ACCOUNT; index += 1) add('p', FIRST_SEEDED_ID + index, { publisherOwnerAccountId: platformOwnerId(index % LIST_PLATFORM_OWNERS) });
    for (let start = 0; start < documents.length; start += 5_000) await tracking.db!.collection('counts_days').insertMany(documents.slice(start, start + 5_000) as never[], { ordered: false });
  } finally {
    await tracking.close();
  }
}

export function p95Of(timing: ListTiming): number {
  return percentile(timing.samples, 95);
}
