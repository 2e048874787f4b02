import { issueToken, readToken, type AllocationClaims } from '@pilot/tokens';
import { expect } from 'chai';
import { clickCounting, isPreviewAgent, judgeClick } from '../src/domain/click';
import { characterCount, judgeDeliveryToken, parseDeliveryBody } from '../src/domain/delivery';
import { dayOf, grainDaysOf, type GrainDays } from '@pilot/counting';
import { parseStatsQuery, planStats, sumHours, sumStats } from '../src/domain/stats';

/** An interval not claimed yet: Redis reports it under the least number its fold will have, above every fold applied. */
const OPEN_INTERVAL = 1_775_000_000_000;

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
    const read = readToken({ current: SECRET, previous: null }, 'delivery', issueToken(SECRET, 'delivery', claims));
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

  // User agents as these fetchers send them (from their operators' documentation and server logs).
  const PREVIEW_FETCHERS = [
    'TelegramBot (like TwitterBot)',
    'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
    'facebookcatalog/1.0',
    'meta-externalagent/1.1 (+https://developers.facebook.com/docs/sharing/webmasters/crawler)',
    'Twitterbot/1.0',
    'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
    'Slackbot 1.0 (+https://api.slack.com/robots)',
    'Slack-ImgProxy (+https://api.slack.com/robots)',
    'WhatsApp/2.23.20.0 A',
    'WhatsApp/2.2329.7 i',
    'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)',
    'LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)',
    'Mozilla/5.0 (Windows NT 6.1; WOW64) SkypeUriPreview Preview/0.5 skype-url-preview@microsoft.com',
    'Mozilla/5.0 (compatible; Pinterestbot/1.0; +http://www.pinterest.com/bot.html)',
    'Pinterest/0.2 (+http://www.pinterest.com/bot.html)',
    'Mozilla/5.0 (Windows NT 6.1; WOW64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/41.0.2228.0 Safari/537.36 (compatible; redditbot/1.0; +http://www.reddit.com/feedback)',
    'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.216 Mobile Safari/537.36 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'Googlebot-Image/1.0',
    'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
    'Mozilla/5.0 (compatible; vkShare; +http://vk.com/dev/Share)',
    'Snap URL Preview Service; bot; snapchat; https://developers.snap.com/robots',
    'Mastodon/4.2.1 (http.rb/5.1.1; +https://mastodon.social/) Bot',
    'Mozilla/5.0 (compatible; Embedly/0.2; +http://support.embed.ly/)',
    'Iframely/1.3.1 (+https://iframely.com/docs/about) Atlassian',
    'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)',
  ];

  // In-app browsers: a person tapped the link inside the app, so the visit is a click.
  const IN_APP_BROWSERS = [
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Instagram 309.1.1.28.108 (iPhone13,3; iOS 17_1_2; en_US; en; scale=3.00; 1170x2532; 541635890)',
    'Mozilla/5.0 (Linux; Android 13; SM-S911B Build/TP1A.220624.014; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/119.0.6045.163 Mobile Safari/537.36 Instagram 307.0.0.34.111 Android (33/13; 480dpi; 1080x2340; samsung; SM-S911B; dm1q; qcom; en_US; 532277158)',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBDV/iPhone14,5;FBMD/iPhone;FBSN/iOS;FBSV/17.1;FBSS/3;FBID/phone;FBLC/en_US;FBOP/5;FBRV/0]',
    'Mozilla/5.0 (Linux; Android 14; Pixel 7 Build/UQ1A.231205.015; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/120.0.6099.144 Mobile Safari/537.36 [FB_IAB/FB4A;FBAV/444.0.0.34.118;]',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Snapchat/12.53.0.39 (like Safari/8615.3.12.10.5, panda)',
    'Mozilla/5.0 (Linux; Android 12; SM-A525F Build/SP1A.210812.016; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/118.0.5993.111 Mobile Safari/537.36 Snapchat/12.56.0.56 (SM-A525F; Android 12#A525FXXU4CWH3#31; gzip; )',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [Pinterest/iOS]',
    'Mozilla/5.0 (Linux; Android 13; SM-G991B Build/TP1A.220624.014; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/119.0.6045.66 Mobile Safari/537.36 [Pinterest/Android]',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 16_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Safari Line/13.10.0',
    'Mozilla/5.0 (Linux; Android 13; SM-A536B Build/TP1A.220624.014; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/117.0.5938.60 Mobile Safari/537.36 Line/13.15.1/IAB',
    'Mozilla/5.0 (Linux; Android 11; Redmi Note 8 Pro Build/RP1A.200720.011; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/116.0.5845.163 Mobile Safari/537.36 Viber/20.6.0.0',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Viber/20.7.0',
    'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.43 Mobile Safari/537.36 Telegram-Android/10.5.0 (Google Pixel 8; Android 14; SDK 34; HIGH)',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 Twitter for iPhone/10.20',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [LinkedInApp]/9.29.8407',
  ];

  it('recognises real link-preview fetchers by their exact product tokens', () => {
    for (const agent of PREVIEW_FETCHERS) expect(isPreviewAgent(agent), agent).to.equal(true);
  });

  it('counts clicks from the in-app browsers of Instagram, Facebook, Snapchat, Pinterest, LINE, Viber and others', () => {
    for (const agent of IN_APP_BROWSERS) {
      expect(isPreviewAgent(agent), agent).to.equal(false);
      expect(clickCounting('GET', agent), agent).to.equal('count');
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
  it('answers every hour of the days of a range, across a month, zeros included', () => {
    const { hours, adRequests } = sumHours([{ '2026-02-28T05': { adRequests: 2 } }, { '2026-03-01T23': { adRequests: 1 } }], { from: '2026-02-28', to: '2026-03-01' });
    expect(hours.map(({ hour }) => hour)).to.have.length(48);
    expect(hours[0]).to.deep.include({ hour: '2026-02-28T00:00:00.000Z', adRequests: 0 });
    expect(hours[5]).to.deep.include({ hour: '2026-02-28T05:00:00.000Z', adRequests: 2 });
    expect(hours[24]!.hour).to.equal('2026-03-01T00:00:00.000Z');
    expect(hours[47]).to.deep.include({ hour: '2026-03-01T23:00:00.000Z', adRequests: 1 });
    expect(adRequests).to.equal(3);
  });

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
      { '2026-01-02': { adRequests: 2, confirmedDeliveries: 1, filtered_head: 9 }, '2026-01-01': { adRequests: 3, clickedLinks: 1, unfilledAdRequests: 4 } },
      { '2026-01-03': { adRequests: 1 }, '2026-01-04': { unfilledAdRequests: 2 } },
    ];
    expect(sumStats(grains, {})).to.deep.equal({
      adRequests: 6,
      confirmedDeliveries: 1,
      clickedLinks: 1,
      unfilledAdRequests: 6,
      days: [
        { date: '2026-01-01', adRequests: 3, confirmedDeliveries: 0, clickedLinks: 1, unfilledAdRequests: 4 },
        { date: '2026-01-02', adRequests: 2, confirmedDeliveries: 1, clickedLinks: 0, unfilledAdRequests: 0 },
        { date: '2026-01-03', adRequests: 1, confirmedDeliveries: 0, clickedLinks: 0, unfilledAdRequests: 0 },
        { date: '2026-01-04', adRequests: 0, confirmedDeliveries: 0, clickedLinks: 0, unfilledAdRequests: 2 },
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

  it("adds Redis counts a grain's documents have not applied: open intervals always, folds above the lastFold of the day's document", () => {
    const stored = { days: { '2026-01-31': { adRequests: 5 }, '2026-02-01': { adRequests: 2 } }, lastFolds: { '2026-01-31': 3, '2026-02-01': 4 } };
    const parts = [
      { fold: OPEN_INTERVAL, fields: new Map([['2026-01-31|adRequests', 1]]) },
      { fold: 3, fields: new Map([['2026-01-31|adRequests', 10]]) },
      { fold: 4, fields: new Map([['2026-01-31|clickedLinks', 2], ['2026-02-01|adRequests', 7]]) },
      { fold: 5, fields: new Map([['2026-02-01|adRequests', 1]]) },
    ];
    expect(grainDaysOf(stored, parts)).to.deep.equal({ '2026-01-31': { adRequests: 6, clickedLinks: 2 }, '2026-02-01': { adRequests: 3 } });
    expect(grainDaysOf(undefined, parts)).to.deep.equal({ '2026-01-31': { adRequests: 11, clickedLinks: 2 }, '2026-02-01': { adRequests: 8 } });
    expect(stored.days).to.deep.equal({ '2026-01-31': { adRequests: 5 }, '2026-02-01': { adRequests: 2 } });
  });
});
