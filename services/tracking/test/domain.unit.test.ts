import { issueToken, readToken, type AllocationClaims } from '@pilot/tokens';
import { expect } from 'chai';
import { clickCounting, isPreviewAgent, judgeClick } from '../src/domain/click';
import { characterCount, judgeDeliveryToken, parseDeliveryBody } from '../src/domain/delivery';
import { dayOf, grainDaysOf, parseStatsQuery, planStats, sumStats, type GrainDays } from '../src/domain/stats';

const SECRET = 'unit-test-secret';
const issuedAt = new Date('2026-05-01T10:00:00Z');
const claims: AllocationClaims = {
  allocationId: '0b6c1e0e-7a51-4c4f-9d52-2f0d8f3c1a11',
  campaignId: 3,
  publisherId: 4,
  campaignOwnerAccountId: '10',
  publisherOwnerAccountId: '20',
  issuedAt,
};
const at = (seconds: number) => new Date(issuedAt.getTime() + seconds * 1000);

describe('delivery rules', () => {
  it('counts characters, not UTF-16 units or bytes', () => {
    expect(characterCount('abc')).to.equal(3);
    expect(characterCount('é😀')).to.equal(2);
  });

  it('parses a body with a well-formed token and names what is wrong otherwise', () => {
    const token = issueToken(SECRET, 'delivery', claims);
    expect(parseDeliveryBody(JSON.stringify({ token }))).to.deep.equal({ ok: true, token });
    expect(parseDeliveryBody('{')).to.include({ ok: false, code: 'invalid_json' });
    expect(parseDeliveryBody('null')).to.include({ ok: false, code: 'invalid_token' });
    expect(parseDeliveryBody('[]')).to.include({ ok: false, code: 'invalid_token' });
    expect(parseDeliveryBody('{"token":null}')).to.include({ ok: false, code: 'invalid_token' });
    expect(parseDeliveryBody('{"token":"x.y"}')).to.include({ ok: false, code: 'invalid_token' });
  });

  it("accepts the caller's token until 3600 s after issue and refuses it after", () => {
    const read = readToken(SECRET, 'delivery', issueToken(SECRET, 'delivery', claims));
    expect(judgeDeliveryToken(read, 4, at(3599)).ok).to.equal(true);
    expect(judgeDeliveryToken(read, 4, at(3600)).ok).to.equal(true);
    expect(judgeDeliveryToken(read, 4, at(3601))).to.deep.equal({ ok: false, code: 'token_expired' });
    expect(judgeDeliveryToken(read, 5, at(1))).to.deep.equal({ ok: false, code: 'token_not_found' });
    expect(judgeDeliveryToken(null, 4, at(1))).to.deep.equal({ ok: false, code: 'token_not_found' });
  });
});

describe('click rules', () => {
  it('recognises link-preview agents and leaves browsers alone', () => {
    for (const agent of ['TelegramBot (like TwitterBot)', 'facebookexternalhit/1.1', 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)', 'Mozilla/5.0 (compatible; Discordbot/2.0)', 'WhatsApp/2.23.20.0', 'Twitterbot/1.0']) {
      expect(isPreviewAgent(agent), agent).to.equal(true);
    }
    for (const agent of [undefined, '', 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) Safari/604.1', 'curl/8.5.0']) {
      expect(isPreviewAgent(agent), String(agent)).to.equal(false);
    }
  });

  it('counts only a GET from a non-preview agent', () => {
    expect(clickCounting('GET', 'Mozilla/5.0')).to.equal('count');
    expect(clickCounting('HEAD', 'Mozilla/5.0')).to.equal('head');
    expect(clickCounting('GET', 'TelegramBot (like TwitterBot)')).to.equal('preview_agent');
  });

  it('refuses an expired link, then an inactive campaign, then an inactive publisher with their codes', () => {
    const base = { claims, activeDestination: 'https://a.example/', publisherActive: true };
    expect(judgeClick({ ...base, now: at(3599) })).to.deep.equal({ ok: true, destination: 'https://a.example/' });
    expect(judgeClick({ ...base, now: at(3601) })).to.deep.equal({ ok: false, code: 'link_expired' });
    expect(judgeClick({ ...base, now: at(1), activeDestination: null })).to.deep.equal({ ok: false, code: 'campaign_inactive' });
    expect(judgeClick({ ...base, now: at(1), publisherActive: false })).to.deep.equal({ ok: false, code: 'publisher_inactive' });
  });
});

describe('stats rules', () => {
  it('reads the UTC date of an instant', () => {
    expect(dayOf(new Date('2026-05-01T23:59:59.999Z'))).to.equal('2026-05-01');
    expect(dayOf(new Date('2026-05-02T00:30:00+02:00'))).to.equal('2026-05-01');
  });

  it('accepts valid filters, treats empty values as absent, and refuses the rest with codes', () => {
    expect(parseStatsQuery({})).to.deep.equal({ ok: true, filter: {} });
    expect(parseStatsQuery({ campaignId: '7', publisherId: '', from: '2026-01-01', to: '2026-01-31' })).to.deep.equal({
      ok: true,
      filter: { campaignId: 7, from: '2026-01-01', to: '2026-01-31' },
    });
    expect(parseStatsQuery({ campaignId: '07' })).to.include({ ok: false, code: 'invalid_campaign_id' });
    expect(parseStatsQuery({ publisherId: ['1', '2'] })).to.include({ ok: false, code: 'invalid_publisher_id' });
    expect(parseStatsQuery({ from: '2026-13-01' })).to.include({ ok: false, code: 'invalid_date' });
    expect(parseStatsQuery({ to: '2026-1-1' })).to.include({ ok: false, code: 'invalid_date' });
    expect(parseStatsQuery({ from: '2026-02-02', to: '2026-02-01' })).to.include({ ok: false, code: 'invalid_date_range' });
  });

  it('adds the day counts of grains into totals and days, oldest first, within from and to', () => {
    const grains: GrainDays[] = [
      { '2026-01-02': { adRequests: 2, confirmedDeliveries: 1, filtered_head: 9 }, '2026-01-01': { adRequests: 3, clickedLinks: 1 } },
      { '2026-01-03': { adRequests: 1 } },
    ];
    expect(sumStats(grains, {})).to.deep.equal({
      adRequests: 6,
      confirmedDeliveries: 1,
      clickedLinks: 1,
      days: [
        { date: '2026-01-01', adRequests: 3, confirmedDeliveries: 0, clickedLinks: 1 },
        { date: '2026-01-02', adRequests: 2, confirmedDeliveries: 1, clickedLinks: 0 },
        { date: '2026-01-03', adRequests: 1, confirmedDeliveries: 0, clickedLinks: 0 },
      ],
    });
    expect(sumStats(grains, { from: '2026-01-02', to: '2026-01-02' }).adRequests).to.equal(2);
  });

  it('plans the grains of every filter: the network for administrators, own records for accounts', () => {
    const owners = (entries: Record<string, string>) => new Map(Object.entries(entries));
    expect(planStats({}).choose(owners({}))).to.deep.equal(['all']);
    expect(planStats({ campaignId: 3, publisherId: 4 }).choose(owners({}))).to.deep.equal(['cp:3:4']);
    expect(planStats({ visibleTo: '9' }).choose(owners({}))).to.deep.equal(['co:9', 'po:9']);
    const byCampaign = planStats({ campaignId: 3, visibleTo: '9' });
    expect(byCampaign.ownerSubjects).to.deep.equal(['c:3']);
    expect(byCampaign.choose(owners({ 'c:3': '9' }))).to.deep.equal(['c:3']);
    expect(byCampaign.choose(owners({ 'c:3': '8' }))).to.deep.equal(['c:3|po:9']);
    expect(planStats({ publisherId: 4, visibleTo: '9' }).choose(owners({ 'p:4': '8' }))).to.deep.equal(['p:4|co:9']);
    const pair = planStats({ campaignId: 3, publisherId: 4, visibleTo: '9' });
    expect(pair.choose(owners({ 'c:3': '8', 'p:4': '9' }))).to.deep.equal(['cp:3:4']);
    expect(pair.choose(owners({ 'c:3': '8', 'p:4': '7' }))).to.deep.equal([]);
  });

  it("adds Redis counts a grain's document has not applied: open intervals always, folds above its lastFold", () => {
    const stored = { '2026-01-01': { adRequests: 5 } };
    const parts = [
      { fold: 0, fields: new Map([['2026-01-01|adRequests', 1]]) },
      { fold: 3, fields: new Map([['2026-01-01|adRequests', 10]]) },
      { fold: 4, fields: new Map([['2026-01-02|clickedLinks', 2]]) },
    ];
    expect(grainDaysOf(stored, 3, parts)).to.deep.equal({ '2026-01-01': { adRequests: 6 }, '2026-01-02': { clickedLinks: 2 } });
    expect(grainDaysOf(undefined, 0, parts)).to.deep.equal({ '2026-01-01': { adRequests: 11 }, '2026-01-02': { clickedLinks: 2 } });
    expect(stored).to.deep.equal({ '2026-01-01': { adRequests: 5 } });
  });
});
