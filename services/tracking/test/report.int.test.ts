import { compile, Report as ReportSchema } from '@pilot/contracts';
import { TotalsStore } from '@pilot/counting/totals';
import { connectMongo } from '@pilot/storage';
import { infraEnv } from '@pilot/testkit';
import { expect } from 'chai';
import { parseReportQuery } from '../src/domain/report';
import { reportCsv } from '../src/use-cases/read-report';
import { activeCampaign, CountedFigures } from './support';

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
    const ADVERTISER = '7201';
    const PUBLISHER_OWNER = '7202';
    const STRANGER = '7203';
    const OTHER_ADVERTISER = '7204';
    const OTHER_PUBLISHER_OWNER = '7205';
    const ADMIN = '7209';
    const admin = { accountId: ADMIN, admin: true };
    const owners: Record<number, string> = { 31: ADVERTISER, 32: ADVERTISER, 33: ADVERTISER, 34: OTHER_ADVERTISER, 41: PUBLISHER_OWNER, 42: PUBLISHER_OWNER, 43: OTHER_PUBLISHER_OWNER };
    const figures = new CountedFigures(owners);

    before(async () => {
      const campaigns = [31, 32, 33, 34].map((id) => activeCampaign(id, owners[id]!));
      campaigns[2] = { ...campaigns[2]!, language: 'de', format: 'channel' };
      await figures.start(campaigns);
      const fold = () => figures.tracking.folder.foldNow(true);

      await figures.adRequests('2026-03-28T09:00:00Z', 31, 43, 2);
      // A platform's day of unfilled requests only: a document with no figure of the report's.
      figures.clock.set('2026-03-30T10:00:00Z');
      await figures.unfilled(42, 'report-unfilled-0');
      if (mode === 'folded in part') await fold();
      const first = await figures.adRequests('2026-04-01T12:00:00Z', 31, 41, 3);
      expect(await figures.countOnce(first, ['confirmedDeliveries', 'clickedLinks'])).to.deep.equal([true, true]);
      // An unfilled request is about no campaign: stats counts it beside adRequests, not in them.
      await figures.unfilled(41, 'report-unfilled-1');
      await figures.adRequests('2026-04-02T08:00:00Z', 32, 41, 2);
      await figures.adRequests('2026-04-02T09:00:00Z', 33, 43, 1);
      await figures.adRequests('2026-04-02T10:00:00Z', 34, 42, 4);
      // A minute after a fold, the next pass sweeps the folds applied: Redis no longer holds their counts.
      const foldAndSweep = async () => {
        await fold();
        figures.clock.set(new Date(figures.clock.now().getTime() + 60_000).toISOString());
        await fold();
      };
      if (mode === 'folded in part') await foldAndSweep();
      await figures.adRequests('2026-04-03T10:00:00Z', 32, 42, 1);
      if (mode === 'folded') await foldAndSweep();
      figures.clock.set('2026-04-03T12:00:00Z');
    });

    after(() => figures.close());

    const get = (path: string, account?: Account) => figures.get(path, account);
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

    it('answers from the coarsest documents what the campaign-on-platform documents answer, for each kind of account', async () => {
      // A report by campaign and platform reads the pair documents; fewer dimensions read the per-campaign
      // or per-platform documents, or the reader's own totals: each is the finer report's rows added up.
      const field = { day: 'day', hour: 'hour', campaign: 'campaignId', publisher: 'publisherId', language: 'language', format: 'format' } as Record<string, string>;
      const cases: Array<[string[], string]> = [
        [['day'], ''],
        [['campaign'], ''],
        [['publisher'], ''],
        [['day', 'campaign'], '&from=2026-04-01&to=2026-04-03'],
        [['day', 'publisher'], ''],
        [['language', 'format'], ''],
        [['day', 'language'], '&publisherId=41'],
        [['day'], '&campaignId=31'],
        [['day', 'campaign'], '&campaignId=32'],
        [['day', 'publisher'], '&campaignId=31'],
        [['campaign', 'language'], '&publisherId=42'],
        [['hour'], '&from=2026-04-01&to=2026-04-03'],
        [['hour', 'campaign'], '&from=2026-04-01&to=2026-04-03&publisherId=41'],
      ];
      for (const account of [{ accountId: ADVERTISER }, { accountId: PUBLISHER_OWNER }, { accountId: OTHER_ADVERTISER }, admin]) {
        for (const [by, filters] of cases) {
          const extra = by[0] === 'hour' || by[0] === 'day' ? [by[0]] : [];
          const finest = [...new Set([...extra, 'campaign', 'publisher', ...by])].slice(0, 3);
          const pairs = await rows(`?by=${finest.join(',')}&limit=100${filters}`, account);
          const added = new Map<string, Row>();
          for (const pair of pairs) {
            const traits = pair.campaignId === 33 ? { language: 'de', format: 'channel' } : { language: 'en', format: 'bot' };
            const values = by.map((dimension) => (dimension === 'language' || dimension === 'format' ? traits[dimension] : pair[field[dimension]!]!));
            const key = JSON.stringify(values);
            const row = added.get(key) ?? Object.fromEntries(by.map((dimension, index) => [field[dimension]!, values[index]!] as const));
            for (const kind of FIGURES) row[kind] = ((row[kind] as number | undefined) ?? 0) + (pair[kind] as number);
            added.set(key, row);
          }
          const answer = await rows(`?by=${by.join(',')}&limit=100${filters}`, account);
          const order = (list: Row[]) => list.map((row) => JSON.stringify(Object.entries(row).sort())).sort();
          expect(order(answer), `${account.accountId} by=${by.join(',')}${filters}`).to.deep.equal(order([...added.values()]));
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

    it('pages a report in day order by campaign, platform or both a page at a time: the same rows as the CSV, the days in the store and in Redis', async () => {
      for (const account of [admin, { accountId: ADVERTISER }, { accountId: PUBLISHER_OWNER }, { accountId: OTHER_PUBLISHER_OWNER }]) {
        for (const by of ['day,campaign,publisher', 'day,publisher,campaign', 'day,campaign', 'day,publisher', 'day,campaign,language', 'day,campaign,format']) {
          for (const range of ['', '&from=2026-04-01&to=2026-04-02', '&from=2026-04-03']) {
            const label = `${account.accountId} by=${by}${range}`;
            const seen: Row[] = [];
            let cursor: string | null = '';
            for (let page = 0; cursor !== null; page += 1) {
              expect(page, `${label}: pages`).to.be.below(10);
              const body: Report = (await ok(`?by=${by}&limit=2${range}${cursor ? `&cursor=${cursor}` : ''}`, account)).body;
              const stats = (await get(`/api/workspace/stats${range.replace('&', '?')}`, account).expect(200)).body as Record<string, number>;
              for (const kind of FIGURES) expect(body.totals[kind], `${label}: ${kind}`).to.equal(stats[kind]);
              seen.push(...body.rows);
              cursor = body.nextCursor;
            }
            const fields = by.split(',').map((dimension) => (dimension === 'campaign' || dimension === 'publisher' ? `${dimension}Id` : dimension));
            const csv = (await ok(`?by=${by}${range}&format=csv`, account)).text.trim().split('\r\n').slice(1);
            expect(seen.map((row) => [...fields, ...FIGURES].map((field) => row[field]).join(',')), label).to.deep.equal(csv);
          }
        }
      }
    });

    it('streams a CSV in day order a store read at a time: every row once, as one read of them all answers it', async () => {
      const mongo = await connectMongo({ url: figures.infra.mongoUrl, dbName: infraEnv(figures.infra, 'tracking').MONGO_DB! });
      const deps = { totals: new TotalsStore(mongo, 5000), unfolded: figures.world.unfolded } as unknown as Parameters<typeof reportCsv>[0];
      const noTraits = { traitsOf: () => Promise.reject(new Error('no language or format is read')) };
      try {
        for (const [account, visibleTo] of [[admin, undefined], [{ accountId: ADVERTISER }, ADVERTISER], [{ accountId: PUBLISHER_OWNER }, PUBLISHER_OWNER]] as const) {
          // All time; three weeks, which are read in three parts of their days side by side.
          for (const [by, range] of [['day,campaign,publisher', {}], ['day,publisher', {}], ['day,campaign,publisher', { from: '2026-03-14', to: '2026-04-03' }], ['day,publisher', { from: '2026-03-14', to: '2026-04-03' }]] as const) {
            const label = `${account.accountId} by=${by} ${JSON.stringify(range)}`;
            const parsed = parseReportQuery({ by, format: 'csv', ...range }, figures.clock.now());
            if (!parsed.ok) throw new Error(parsed.code);
            const parts: string[] = [];
            for await (const part of reportCsv(deps, parsed.query, visibleTo, noTraits, 2)) parts.push(part);
            const whole = (await ok(`?${new URLSearchParams({ by, format: 'csv', ...range }).toString()}`, account)).text;
            expect(parts.join(''), label).to.equal(whole);
            // What Redis holds is read whole; the folded days come two documents a filter a read.
            if (mode !== 'in Redis') expect(parts.length, `${label}: parts`).to.be.above(whole.split('\r\n').length / 4);
          }
        }
      } finally {
        await mongo.close();
      }
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
  const figures = new CountedFigures({ 51: '7301', 61: '7302' });

  before(() => figures.start([activeCampaign(51, '7301')]));
  after(() => figures.close());

  it('adds an ad request to the folded documents the moment it is counted', async () => {
    const read = async () => ((await figures.get('/api/workspace/stats/report?by=campaign', { accountId: '7301' }).expect(200)).body as Report).totals.adRequests;
    await figures.adRequests('2026-05-10T10:00:00Z', 51, 61, 1);
    await figures.tracking.folder.foldNow(true);
    expect(await read()).to.equal(1);
    await figures.adRequests('2026-05-10T10:00:00Z', 51, 61, 1);
    expect(await read(), 'one folded, one in Redis').to.equal(2);
  });
});

describe('tracking: GET /api/workspace/stats/report pages through the rows its first page read', () => {
  const figures = new CountedFigures({ 81: '7501', 82: '7501', 83: '7501', 91: '7502' });
  const owner = { accountId: '7501' };
  const page = async (query: string) => (await figures.get(`/api/workspace/stats/report${query}`, owner).expect(200)).body as Report;

  before(async () => {
    await figures.start([81, 82, 83].map((id) => activeCampaign(id, '7501')));
    for (const [campaignId, times] of [[81, 3], [82, 2], [83, 1]] as const) await figures.adRequests('2026-05-12T10:00:00Z', campaignId, 91, times);
  });
  after(() => figures.close());

  it('cuts the next pages from the first page’s rows while figures move, and a new first page reads them again', async () => {
    const first = await page('?by=campaign&limit=1');
    expect(first.rows.map((row) => [row.campaignId, row.adRequests])).to.deep.equal([[81, 3]]);
    // The last campaign overtakes the others: read afresh, it would come first and 81 second.
    await figures.adRequests('2026-05-12T11:00:00Z', 83, 91, 5);
    const second = await page(`?by=campaign&limit=1&cursor=${first.nextCursor}`);
    const third = await page(`?by=campaign&limit=1&cursor=${second.nextCursor}`);
    expect([...second.rows, ...third.rows].map((row) => [row.campaignId, row.adRequests]), 'each campaign once, as first read').to.deep.equal([
      [82, 2],
      [83, 1],
    ]);
    expect(third.nextCursor).to.equal(null);
    expect(third.totals.adRequests, 'the totals of the same rows').to.equal(6);
    const again = await page('?by=campaign&limit=1');
    expect(again.rows.map((row) => [row.campaignId, row.adRequests])).to.deep.equal([[83, 6]]);
    expect(again.totals.adRequests).to.equal(11);
    const csv = (await figures.get('/api/workspace/stats/report?by=campaign&format=csv', owner).expect(200)).text;
    expect(csv.split('\r\n').slice(1, 4), 'a CSV reads afresh too').to.deep.equal(['83,6,0,0', '81,3,0,0', '82,2,0,0']);
  });
});

describe('tracking: GET /api/workspace/stats/report names the language and format of campaigns not active', () => {
  const figures = new CountedFigures({ 61: '7401', 62: '7401', 63: '7401', 71: '7402' });

  before(async () => {
    await figures.start([activeCampaign(61, '7401')]);
    // Paused before tracking started: the active campaigns' cache never held it; the campaign service stores it.
    figures.snapshot.stored = [{ ...activeCampaign(62, '7401'), status: 'paused', language: 'fa', format: 'channel' }];
    for (const [campaignId, times] of [[61, 1], [62, 2], [63, 1]] as const) await figures.adRequests('2026-05-10T10:00:00Z', campaignId, 71, times);
  });

  after(() => figures.close());

  async function rows(query: string): Promise<Row[]> {
    return ((await figures.get(`/api/workspace/stats/report${query}`, { accountId: '7401' }).expect(200)).body as Report).rows;
  }

  it('reads a paused campaign’s language and format from the campaign service, with one call for the report, and keeps them a while', async () => {
    figures.snapshot.traitCalls.length = 0;
    expect(await rows('?by=campaign,language,format&sort=campaign')).to.deep.equal([
      { campaignId: 61, language: 'en', format: 'bot', adRequests: 1, confirmedDeliveries: 0, clickedLinks: 0 },
      { campaignId: 62, language: 'fa', format: 'channel', adRequests: 2, confirmedDeliveries: 0, clickedLinks: 0 },
      // Not stored by the campaign service: unknown.
      { campaignId: 63, language: null, format: null, adRequests: 1, confirmedDeliveries: 0, clickedLinks: 0 },
    ]);
    expect(figures.snapshot.traitCalls, 'one call, for the campaigns the active cache does not hold').to.deep.equal(['62,63']);
    expect(await rows('?by=language&sort=language')).to.deep.equal([
      { language: null, adRequests: 1, confirmedDeliveries: 0, clickedLinks: 0 },
      { language: 'en', adRequests: 1, confirmedDeliveries: 0, clickedLinks: 0 },
      { language: 'fa', adRequests: 2, confirmedDeliveries: 0, clickedLinks: 0 },
    ]);
    expect(figures.snapshot.traitCalls, 'the paused campaign is kept; the unknown one is asked again').to.deep.equal(['62,63', '63']);
    expect(await rows('?by=campaign&sort=campaign')).to.have.length(3);
    expect(figures.snapshot.traitCalls, 'no call without language or format').to.have.length(2);
  });

  it('answers while the campaign service cannot, with what it kept and the rest unknown', async () => {
    figures.snapshot.failing = true;
    try {
      expect(await rows('?by=format&sort=format')).to.deep.equal([
        { format: null, adRequests: 1, confirmedDeliveries: 0, clickedLinks: 0 },
        { format: 'bot', adRequests: 1, confirmedDeliveries: 0, clickedLinks: 0 },
        { format: 'channel', adRequests: 2, confirmedDeliveries: 0, clickedLinks: 0 },
      ]);
    } finally {
      figures.snapshot.failing = false;
    }
  });
});
