/**
 * The report (API.md `GET /api/workspace/stats/report`) through the gateway: an ad served, confirmed and
 * clicked, then the report as each account sees it, equal to `stats` and the breakdown, as JSON and CSV,
 * and every bad query refused with its code.
 */
import { waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { openLink, signedIn, type Ad, type Answer, type Browser } from './support/clients';
import { activeCampaign, approvedPublisher, type Campaign } from './support/scenario';
import { ADMIN_ID, startSystem, type System } from './support/system';

type Row = Record<string, string | number | null>;
interface Report {
  rows: Row[];
  totals: Record<string, number>;
  nextCursor: string | null;
}
const FIGURES = ['adRequests', 'confirmedDeliveries', 'clickedLinks'] as const;

describe('the report through the gateway', function () {
  this.timeout(120_000);
  let system: System;
  let admin: Browser;
  let advertiser: Browser;
  let publisherOwner: Browser;
  let stranger: Browser;
  let campaign: Campaign;
  let publisherId: number;
  const today = new Date().toISOString().slice(0, 10);

  before(async () => {
    system = await startSystem();
    admin = await signedIn(system, ADMIN_ID);
    advertiser = await signedIn(system, '5201');
    publisherOwner = await signedIn(system, '5202');
    stranger = await signedIn(system, '5203');
    campaign = await activeCampaign(advertiser, admin, { language: 'uk' });
    const approved = await approvedPublisher(system, publisherOwner, admin);
    publisherId = approved.publisher.id;
    const ad = await waitFor(async () => {
      const answer = await approved.server.ad('uk');
      return answer.status === 200 ? (answer as unknown as Answer<Ad>) : null;
    }, { timeoutMs: 10_000, message: 'an ad to be served' });
    expect((await approved.server.confirm(ad.body.delivery_token)).status).to.equal(200);
    expect((await openLink(ad.body.click_url)).status).to.equal(302);
  });

  after(async () => {
    await system?.stop();
  });

  it('shows each account the figures counted a moment ago, by day, campaign and language, equal to stats and the breakdown', async () => {
    for (const who of [advertiser, publisherOwner, admin]) {
      const report = await waitFor(async () => {
        const answer = await who.get<Report>(`/api/workspace/stats/report?by=day,campaign,language&from=${today}&to=${today}`);
        expect(answer.status, answer.text).to.equal(200);
        return answer.body.totals.clickedLinks === 1 ? answer.body : null;
      }, { message: 'the click to be counted' });
      expect(report.rows).to.deep.include({ day: today, campaignId: campaign.id, language: 'uk', adRequests: 1, confirmedDeliveries: 1, clickedLinks: 1 });
      const stats = (await who.get<Record<string, number>>(`/api/workspace/stats?from=${today}&to=${today}`)).body;
      for (const kind of FIGURES) expect(report.totals[kind], kind).to.equal(stats[kind]);
      const byCampaign = (await who.get<Report>(`/api/workspace/stats/report?by=campaign&from=${today}&to=${today}&limit=100`)).body.rows;
      const breakdown = (await who.get<{ items: Array<Record<string, number>> }>(`/api/workspace/stats/breakdown?by=campaign&from=${today}&to=${today}&limit=100`)).body.items;
      expect(byCampaign.map((row) => [row.campaignId, ...FIGURES.map((kind) => row[kind])])).to.deep.equal(
        breakdown.filter((item) => FIGURES.some((kind) => item[kind]! > 0)).map((item) => [item.id, ...FIGURES.map((kind) => item[kind])]),
      );
    }
    const strangers = await stranger.get<Report>('/api/workspace/stats/report?by=campaign');
    expect(strangers.body).to.deep.equal({ rows: [], totals: { adRequests: 0, confirmedDeliveries: 0, clickedLinks: 0 }, nextCursor: null });
  });

  it('answers CSV of every row with the same visibility', async () => {
    const csv = await advertiser.get(`/api/workspace/stats/report?by=campaign,publisher&format=csv&limit=1`);
    expect(csv.status).to.equal(200);
    expect(csv.headers.get('content-type')).to.match(/^text\/csv/);
    expect(csv.text).to.equal(`campaignId,publisherId,adRequests,confirmedDeliveries,clickedLinks\r\n${campaign.id},${publisherId},1,1,1\r\n`);
    expect((await stranger.get('/api/workspace/stats/report?by=campaign,publisher&format=csv')).text).to.equal('campaignId,publisherId,adRequests,confirmedDeliveries,clickedLinks\r\n');
  });

  it('refuses every bad query with problem+json 400 and a stable code, and a call without a session with 401', async () => {
    const page = (await admin.get<Report>('/api/workspace/stats/report?by=campaign&limit=1')).body;
    const cases: Array<[string, string]> = [
      ['', 'invalid_dimension'],
      ['?by=account', 'invalid_dimension'],
      ['?by=day,day', 'invalid_dimension'],
      ['?by=day,campaign,publisher,format', 'invalid_dimension'],
      ['?by=hour,day', 'invalid_dimension'],
      ['?by=campaign&sort=publisher', 'invalid_sort'],
      ['?by=campaign&limit=500', 'invalid_limit'],
      ['?by=campaign&format=pdf', 'invalid_format'],
      ['?by=campaign&cursor=abc', 'invalid_cursor'],
      [`?by=publisher&cursor=${page.nextCursor ?? 'W10'}`, 'invalid_cursor'],
      ['?by=campaign&campaignId=-1', 'invalid_campaign_id'],
      ['?by=campaign&publisherId=x', 'invalid_publisher_id'],
      ['?by=campaign&to=tomorrow', 'invalid_date'],
      ['?by=campaign&from=2026-03-02&to=2026-03-01', 'invalid_date_range'],
      ['?by=hour&from=2026-03-01', 'invalid_hour_range'],
      ['?by=hour&from=2020-01-01&to=2020-01-02', 'hours_not_kept'],
    ];
    for (const [query, code] of cases) {
      const answer = await advertiser.get<{ code: string }>(`/api/workspace/stats/report${query}`);
      expect(answer.status, query).to.equal(400);
      expect(answer.headers.get('content-type'), query).to.match(/^application\/problem\+json/);
      expect(answer.body.code, query).to.equal(code);
    }
    expect((await fetch(`${system.baseUrl}/api/workspace/stats/report?by=campaign`)).status).to.equal(401);
  });
});
