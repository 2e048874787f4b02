import { compile, Report as ReportSchema } from '@pilot/contracts';
import { ManualClock, testInfra, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import request from 'supertest';
import type { RunningTracking } from '../src/start';
import { activeCampaign, allocate, campaignSnapshot, gatewaySigned, startTracking, TestWorld, type CampaignSnapshot } from './support';

type Account = { accountId: string; admin?: boolean };
type Row = Record<string, string | number | null>;
interface Report {
  rows: Row[];
  totals: Record<string, number>;
  nextCursor: string | null;
}

const FIGURES = ['adRequests', 'confirmedDeliveries', 'clickedLinks'] as const;
const validReport = compile(ReportSchema);

/** The counts stay in Redis, are all folded, or are folded in two passes with the last day left in Redis. */
for (const mode of ['in Redis', 'folded', 'folded in part'] as const) {
  describe(`tracking: GET /api/workspace/stats/report with the counts ${mode}`, () => {
    const infra = testInfra();
    const clock = new ManualClock();
    const world = new TestWorld(infra);
    let snapshot: CampaignSnapshot;
    let tracking: RunningTracking;

    const ADVERTISER = '7201';
    const PUBLISHER_OWNER = '7202';
    const STRANGER = '7203';
    const OTHER_ADVERTISER = '7204';
    const OTHER_PUBLISHER_OWNER = '7205';
    const ADMIN = '7209';
    const admin = { accountId: ADMIN, admin: true };
    const owners: Record<number, string> = { 31: ADVERTISER, 32: ADVERTISER, 33: ADVERTISER, 34: OTHER_ADVERTISER, 41: PUBLISHER_OWNER, 42: PUBLISHER_OWNER, 43: OTHER_PUBLISHER_OWNER };

    async function adRequests(at: string, c: number, p: number, times: number) {
      clock.set(at);
      const made = Array.from({ length: times }, () => allocate(infra, clock, { campaignId: c, publisherId: p, campaignOwner: owners[c]!, publisherOwner: owners[p]! }));
      for (const allocation of made) await world.countAllocation(allocation.claims);
      return made[0]!.claims;
    }

    before(async () => {
      await world.ready();
      const campaigns = [31, 32, 33, 34].map((id) => activeCampaign(id, owners[id]!));
      campaigns[2] = { ...campaigns[2]!, language: 'de', format: 'channel' };
      snapshot = await campaignSnapshot(campaigns);
      tracking = await startTracking(infra, snapshot.url, { clock }, { COUNT_FOLD_INTERVAL_MS: '0' });
      await waitFor(async () => (await fetch(`${tracking.url}/readyz`)).ok, { message: 'tracking ready' });

      await adRequests('2026-03-28T09:00:00Z', 31, 43, 2);
      if (mode === 'folded in part') await tracking.folder.foldNow(true);
      const first = await adRequests('2026-04-01T12:00:00Z', 31, 41, 3);
      const counted = { campaignId: 31, publisherId: 41, campaignOwnerAccountId: ADVERTISER, publisherOwnerAccountId: PUBLISHER_OWNER, allocatedAt: first.issuedAt };
      expect(await world.counts.countOnce('confirmedDeliveries', first.allocationId, counted, clock.now())).to.equal(true);
      expect(await world.counts.countOnce('clickedLinks', first.allocationId, counted, clock.now())).to.equal(true);
      // An unfilled request is about no campaign: stats counts it beside adRequests, not in them.
      await world.counts.countAdRequest(41, { points: 1000, windowSeconds: 60 }, { unfilled: true, requestId: 'report-unfilled-1', publisherId: 41, publisherOwnerAccountId: PUBLISHER_OWNER, requestedAt: clock.now() }, clock.now());
      await adRequests('2026-04-02T08:00:00Z', 32, 41, 2);
      await adRequests('2026-04-02T09:00:00Z', 33, 43, 1);
      await adRequests('2026-04-02T10:00:00Z', 34, 42, 4);
      if (mode === 'folded in part') await tracking.folder.foldNow(true);
      await adRequests('2026-04-03T10:00:00Z', 32, 42, 1);
      if (mode === 'folded') await tracking.folder.foldNow(true);
      clock.set('2026-04-03T12:00:00Z');
    });

    after(async () => {
      await tracking?.stop();
      await snapshot?.close();
      await world.close();
    });

    function get(path: string, account?: Account) {
      return request(tracking.url).get(path).set(gatewaySigned(infra, 'GET', path, account));
    }
    /** The answer, checked against the workspace API's schema when it is a JSON report. */
    async function report(query: string, account?: Account) {
      const answer = await get(`/api/workspace/stats/report${query}`, account);
      if (answer.status === 200 && !query.includes('format=csv')) expect(validReport(answer.body), JSON.stringify(validReport.errors)).to.equal(true);
      return answer;
    }
    async function ok(query: string, account?: Account) {
      const answer = await report(query, account);
      expect(answer.status, `${query}: ${answer.text}`).to.equal(200);
      return answer;
    }
    async function rows(query: string, account: Account): Promise<Row[]> {
      const body = (await ok(query, account)).body as Report;
      expect(body.nextCursor, query).to.equal(null);
      return body.rows;
    }

    it('groups an advertiser’s records by day and campaign, the day first, with the totals of every row', async () => {
      const answer = (await ok('?by=day,campaign', { accountId: ADVERTISER })).body as Report;
      expect(answer).to.deep.equal({
        rows: [
          { day: '2026-03-28', campaignId: 31, adRequests: 2, confirmedDeliveries: 0, clickedLinks: 0 },
          { day: '2026-04-01', campaignId: 31, adRequests: 3, confirmedDeliveries: 1, clickedLinks: 1 },
          { day: '2026-04-02', campaignId: 32, adRequests: 2, confirmedDeliveries: 0, clickedLinks: 0 },
          { day: '2026-04-02', campaignId: 33, adRequests: 1, confirmedDeliveries: 0, clickedLinks: 0 },
          { day: '2026-04-03', campaignId: 32, adRequests: 1, confirmedDeliveries: 0, clickedLinks: 0 },
        ],
        totals: { adRequests: 9, confirmedDeliveries: 1, clickedLinks: 1 },
        nextCursor: null,
      });
    });

    it('carries the campaign’s language and format, and the platform', async () => {
      expect(await rows('?by=language,format', admin)).to.deep.equal([
        { language: 'en', format: 'bot', adRequests: 12, confirmedDeliveries: 1, clickedLinks: 1 },
        { language: 'de', format: 'channel', adRequests: 1, confirmedDeliveries: 0, clickedLinks: 0 },
      ]);
      expect(await rows('?by=publisher,language&sort=publisher', { accountId: PUBLISHER_OWNER })).to.deep.equal([
        { publisherId: 41, language: 'en', adRequests: 5, confirmedDeliveries: 1, clickedLinks: 1 },
        { publisherId: 42, language: 'en', adRequests: 5, confirmedDeliveries: 0, clickedLinks: 0 },
      ]);
    });

    it('adds up to the totals of stats and, by campaign or platform, to the breakdown, for an advertiser, a publisher owner and an administrator', async () => {
      for (const account of [{ accountId: ADVERTISER }, { accountId: PUBLISHER_OWNER }, { accountId: OTHER_PUBLISHER_OWNER }, admin]) {
        for (const range of ['', '?from=2026-04-02&to=2026-04-03', '?campaignId=31', '?publisherId=41']) {
          const stats = (await get(`/api/workspace/stats${range}`, account).expect(200)).body as Record<string, number>;
          const join = range ? `${range}&` : '?';
          for (const by of ['campaign', 'publisher']) {
            const answer = (await ok(`${join}by=${by}&limit=100`, account)).body as Report;
            for (const kind of FIGURES) expect(answer.totals[kind], `${account.accountId} ${range} by ${by}: ${kind}`).to.equal(stats[kind]);
            const items = (await get(`/api/workspace/stats/breakdown${join}by=${by}&limit=100`, account).expect(200)).body.items as Array<Record<string, number>>;
            const field = by === 'campaign' ? 'campaignId' : 'publisherId';
            const fromBreakdown = items.filter((item) => FIGURES.some((kind) => item[kind]! > 0)).map((item) => [item.id, ...FIGURES.map((kind) => item[kind])]);
            expect(answer.rows.map((row) => [row[field], ...FIGURES.map((kind) => row[kind])]), `${account.accountId} ${range} by ${by}`).to.deep.equal(fromBreakdown);
          }
        }
      }
    });

    it('shows an account with no records nothing, and keeps to the filters and the range', async () => {
      expect(await report('?by=campaign', { accountId: STRANGER })).to.have.nested.property('body.totals.adRequests', 0);
      expect(await rows('?by=campaign', { accountId: STRANGER })).to.deep.equal([]);
      expect(await rows('?by=publisher&campaignId=31', { accountId: PUBLISHER_OWNER })).to.deep.equal([{ publisherId: 41, adRequests: 3, confirmedDeliveries: 1, clickedLinks: 1 }]);
      expect(await rows('?by=campaign,publisher&from=2026-04-02&to=2026-04-02', { accountId: OTHER_ADVERTISER })).to.deep.equal([{ campaignId: 34, publisherId: 42, adRequests: 4, confirmedDeliveries: 0, clickedLinks: 0 }]);
    });

    it('groups by the hour of a range of at most 7 days', async () => {
      const answer = (await ok('?by=hour,campaign&from=2026-04-01&to=2026-04-03', { accountId: ADVERTISER })).body as Report;
      expect(answer.rows).to.deep.equal([
        { hour: '2026-04-01T12:00:00.000Z', campaignId: 31, adRequests: 3, confirmedDeliveries: 1, clickedLinks: 1 },
        { hour: '2026-04-02T08:00:00.000Z', campaignId: 32, adRequests: 2, confirmedDeliveries: 0, clickedLinks: 0 },
        { hour: '2026-04-02T09:00:00.000Z', campaignId: 33, adRequests: 1, confirmedDeliveries: 0, clickedLinks: 0 },
        { hour: '2026-04-03T10:00:00.000Z', campaignId: 32, adRequests: 1, confirmedDeliveries: 0, clickedLinks: 0 },
      ]);
      const stats = (await get('/api/workspace/stats?granularity=hour&from=2026-04-01&to=2026-04-03', { accountId: ADVERTISER }).expect(200)).body as Record<string, number>;
      for (const kind of FIGURES) expect(answer.totals[kind], kind).to.equal(stats[kind]);
    });

    it('sorts by a figure highest first or by a dimension, ties by the dimensions, and pages with the cursors', async () => {
      expect((await rows('?by=campaign,publisher&sort=adRequests', admin)).map((row) => [row.campaignId, row.publisherId])).to.deep.equal([
        [34, 42], [31, 41], [31, 43], [32, 41], [32, 42], [33, 43],
      ]);
      expect((await rows('?by=campaign,publisher&sort=publisher', admin)).map((row) => [row.campaignId, row.publisherId])).to.deep.equal([
        [31, 41], [32, 41], [32, 42], [34, 42], [31, 43], [33, 43],
      ]);
      const seen: Row[] = [];
      let cursor: string | null = '';
      let totals: Record<string, number> | undefined;
      for (let page = 0; cursor !== null; page += 1) {
        expect(page, 'pages').to.be.below(10);
        const body: Report = (await ok(`?by=campaign,publisher&sort=clickedLinks&limit=4${cursor ? `&cursor=${cursor}` : ''}`, admin)).body;
        totals ??= body.totals;
        expect(body.totals, 'every page carries the totals of every row').to.deep.equal(totals);
        seen.push(...body.rows);
        cursor = body.nextCursor;
      }
      expect(seen).to.deep.equal(await rows('?by=campaign,publisher&sort=clickedLinks&limit=100', admin));
      expect(seen.map((row) => [row.campaignId, row.publisherId])).to.deep.equal([[31, 41], [31, 43], [32, 41], [32, 42], [33, 43], [34, 42]]);
    });

    it('answers CSV: a header, then every row, without paging', async () => {
      const answer = await ok('?by=day,campaign,language&sort=clickedLinks&limit=1&format=csv', { accountId: ADVERTISER });
      expect(answer.headers['content-type']).to.match(/^text\/csv/);
      expect(answer.text).to.equal(
        [
          'day,campaignId,language,adRequests,confirmedDeliveries,clickedLinks',
          '2026-04-01,31,en,3,1,1',
          '2026-03-28,31,en,2,0,0',
          '2026-04-02,32,en,2,0,0',
          '2026-04-02,33,de,1,0,0',
          '2026-04-03,32,en,1,0,0',
        ]
          .map((line) => `${line}\r\n`)
          .join(''),
      );
      expect((await ok('?by=campaign&format=csv', { accountId: STRANGER })).text).to.equal('campaignId,adRequests,confirmedDeliveries,clickedLinks\r\n');
    });

    it('refuses bad dimensions, a bad cursor and bad query values with 400 and a stable code', async () => {
      const page = (await ok('?by=campaign&limit=1', admin)).body as Report;
      const cases: Array<[string, string]> = [
        ['', 'invalid_dimension'],
        ['?by=account', 'invalid_dimension'],
        ['?by=campaign,campaign', 'invalid_dimension'],
        ['?by=campaign&by=publisher', 'invalid_dimension'],
        ['?by=campaign,publisher,language,format', 'invalid_dimension'],
        ['?by=day,hour', 'invalid_dimension'],
        ['?by=campaign,', 'invalid_dimension'],
        ['?by=campaign&sort=name', 'invalid_sort'],
        ['?by=campaign&sort=day', 'invalid_sort'],
        ['?by=campaign&limit=0', 'invalid_limit'],
        ['?by=campaign&limit=101', 'invalid_limit'],
        ['?by=campaign&format=xml', 'invalid_format'],
        ['?by=campaign&cursor=not-a-cursor', 'invalid_cursor'],
        [`?by=campaign&sort=clickedLinks&cursor=${page.nextCursor}`, 'invalid_cursor'],
        [`?by=publisher&cursor=${page.nextCursor}`, 'invalid_cursor'],
        ['?by=campaign&campaignId=abc', 'invalid_campaign_id'],
        ['?by=campaign&publisherId=0', 'invalid_publisher_id'],
        ['?by=campaign&from=2026-02-30', 'invalid_date'],
        ['?by=campaign&from=2026-03-02&to=2026-03-01', 'invalid_date_range'],
        ['?by=hour', 'invalid_hour_range'],
        ['?by=hour&from=2026-03-25&to=2026-04-03', 'invalid_hour_range'],
        ['?by=hour&from=2026-01-01&to=2026-01-02', 'hours_not_kept'],
      ];
      for (const [query, code] of cases) {
        const answer = await report(query, { accountId: ADVERTISER });
        expect(answer.status, query).to.equal(400);
        expect(answer.headers['content-type'], query).to.match(/^application\/problem\+json/);
        expect(answer.body.code, query).to.equal(code);
      }
      expect((await report('?by=campaign')).status).to.equal(401);
    });
  });
}

describe('tracking: GET /api/workspace/stats/report counts what was counted a moment ago', () => {
  const infra = testInfra();
  const clock = new ManualClock();
  const world = new TestWorld(infra);
  let snapshot: CampaignSnapshot;
  let tracking: RunningTracking;

  before(async () => {
    await world.ready();
    snapshot = await campaignSnapshot([activeCampaign(51, '7301')]);
    tracking = await startTracking(infra, snapshot.url, { clock }, { COUNT_FOLD_INTERVAL_MS: '0' });
    await waitFor(async () => (await fetch(`${tracking.url}/readyz`)).ok, { message: 'tracking ready' });
  });

  after(async () => {
    await tracking?.stop();
    await snapshot?.close();
    await world.close();
  });

  it('adds an ad request to the folded documents the moment it is counted', async () => {
    const path = '/api/workspace/stats/report?by=campaign';
    const read = async () => ((await request(tracking.url).get(path).set(gatewaySigned(infra, 'GET', path, { accountId: '7301' })).expect(200)).body as Report).totals.adRequests;
    clock.set('2026-05-10T10:00:00Z');
    await world.countAllocation(allocate(infra, clock, { campaignId: 51, publisherId: 61, campaignOwner: '7301', publisherOwner: '7302' }).claims);
    await tracking.folder.foldNow(true);
    expect(await read()).to.equal(1);
    await world.countAllocation(allocate(infra, clock, { campaignId: 51, publisherId: 61, campaignOwner: '7301', publisherOwner: '7302' }).claims);
    expect(await read(), 'one folded, one in Redis').to.equal(2);
  });
});
