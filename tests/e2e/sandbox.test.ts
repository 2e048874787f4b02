/**
 * The sandbox and the fill figures end to end through the gateway, on real Redis,
 * RabbitMQ and FerretDB: a platform's owner makes a test key before any approval, gets the fixed test
 * creative, confirms and clicks it without moving any total, forces 204/429/503, meets the 60-a-minute
 * limit on the window all test keys of one account share, and revokes it; a live key's 204s show as the publisher's unfilled
 * ad requests.
 */
import { expect } from 'chai';
import { waitFor } from '@pilot/testkit';
import { openLink, signedIn, type Ad, type Answer, type Browser, PublisherServer } from './support/clients';
import { activeCampaign, approvedPublisher } from './support/scenario';
import { ADMIN_ID, startSystem, type System } from './support/system';

interface Figures {
  adRequests: number;
  confirmedDeliveries: number;
  clickedLinks: number;
  unfilledAdRequests: number;
}

const TEST_CAMPAIGN_ID = 4_294_967_295;
const FIGURES = ['adRequests', 'confirmedDeliveries', 'clickedLinks', 'unfilledAdRequests'] as const;

let linkSerial = 0;

describe('sandbox: test keys and fill figures end to end', function () {
  this.timeout(180_000);
  let system: System;
  let admin: Browser;
  let advertiser: Browser;
  let owner: Browser;

  before(async () => {
    system = await startSystem();
    admin = await signedIn(system, ADMIN_ID);
    advertiser = await signedIn(system, '6001');
    owner = await signedIn(system, '6002');
    await activeCampaign(advertiser, admin, { format: 'bot', language: 'all' });
  });

  after(async () => {
    await system?.stop();
  });

  async function draftPlatform(type: 'bot' | 'channel' = 'bot'): Promise<number> {
    linkSerial += 1;
    const link = type === 'bot' ? `@sandbox_${linkSerial}_bot` : `@sandbox_channel_${linkSerial}`;
    const created = await owner.post<{ id: number }>('/api/workspace/publishers', { type, link });
    expect(created.status, created.text).to.equal(201);
    return created.body.id;
  }

  async function testKeyOf(publisherId: number): Promise<PublisherServer> {
    const made = await owner.post<{ key: string; keyCreatedAt: string }>(`/api/workspace/publishers/${publisherId}/test-key`);
    expect(made.status, made.text).to.equal(201);
    expect(made.body.key).to.match(/^pilot_pk_test_[0-9A-Za-z]{38}$/);
    return new PublisherServer(system, made.body.key);
  }

  function adWith(key: string, headers: Record<string, string> = {}, language = 'en'): Promise<Answer<Ad & Record<string, unknown>>> {
    return fetch(`${system.baseUrl}/api/network/ad?language=${language}`, { headers: { authorization: `Bearer ${key}`, ...headers } }).then(async (r) => {
      const text = await r.text();
      return { status: r.status, headers: r.headers, text, body: text && /json/.test(r.headers.get('content-type') ?? '') ? JSON.parse(text) : {} };
    });
  }

  async function figures(who: Browser, query = ''): Promise<Figures> {
    const answer = await who.get<Figures>(`/api/workspace/stats${query}`);
    expect(answer.status, answer.text).to.equal(200);
    return Object.fromEntries(FIGURES.map((name) => [name, answer.body[name]])) as unknown as Figures;
  }

  it('lets the owner of a platform not yet approved make a test key and get the fixed test creative', async () => {
    const id = await draftPlatform();
    expect((await owner.post(`/api/workspace/publishers/${id}/keys`)).status, 'no live key before approval').to.equal(409);
    const server = await testKeyOf(id);
    const answer = await adWith(server.key);
    expect(answer.status, answer.text).to.equal(200);
    expect(answer.headers.get('x-pilot-test')).to.equal('true');
    expect(answer.headers.get('ratelimit-limit')).to.equal('60');
    expect(answer.headers.get('cache-control')).to.contain('no-store');
    expect(answer.body).to.include({ campaign_id: TEST_CAMPAIGN_ID, sponsored: true, billing: 'pilot_non_billable', expires_in: 3600, image_url: null });
    expect(answer.body.title).to.match(/^Test ad/);
    expect(answer.body.click_url.startsWith(`${system.baseUrl}/api/network/click/`)).to.equal(true);
    const platform = await owner.get<{ testKeyCreatedAt: string | null; keyCreatedAt: string | null; status: string }>(`/api/workspace/publishers/${id}`);
    expect(platform.body).to.include({ status: 'draft', keyCreatedAt: null });
    expect(platform.body.testKeyCreatedAt).to.be.a('string');
  });

  it('confirms and clicks a test allocation as live ones answer, and never counts them', async () => {
    const id = await draftPlatform();
    const server = await testKeyOf(id);
    const before = { owner: await figures(owner), admin: await figures(admin), advertiser: await figures(advertiser) };
    const ad = (await adWith(server.key)).body;
    expect((await server.confirm(ad.delivery_token)).body).to.deep.equal({ status: 'confirmed', first_confirmation: true });
    expect((await server.confirm(ad.delivery_token)).body).to.deep.equal({ status: 'confirmed', first_confirmation: false });
    const click = await openLink(ad.click_url);
    expect(click.status).to.equal(302);
    expect(click.headers.get('location')).to.equal(`${system.baseUrl}/sandbox`);
    expect((await openLink(ad.click_url)).status, 'a repeated click').to.equal(302);
    const forced = await adWith(server.key, { 'x-pilot-test-answer': '204' });
    expect(forced.status).to.equal(204);
    expect(await figures(owner), 'the owner\'s figures').to.deep.equal(before.owner);
    expect(await figures(admin), 'the network\'s figures').to.deep.equal(before.admin);
    expect(await figures(advertiser), 'the advertiser\'s figures').to.deep.equal(before.advertiser);
    expect(await figures(owner, `?publisherId=${id}`)).to.deep.equal({ adRequests: 0, confirmedDeliveries: 0, clickedLinks: 0, unfilledAdRequests: 0 });
  });

  it('confirms a test allocation only with the test key, and a live allocation only with the live key', async () => {
    const { publisher, server: live } = await approvedPublisher(system, owner, admin);
    const test = await testKeyOf(publisher.id);
    const testAd = (await adWith(test.key)).body;
    const liveAd = (await adWith(live.key)).body;
    expect(liveAd.campaign_id).to.not.equal(TEST_CAMPAIGN_ID);
    expect((await live.confirm(testAd.delivery_token)).body).to.include({ code: 'token_not_found' });
    expect((await test.confirm(liveAd.delivery_token)).body).to.include({ code: 'token_not_found' });
    expect((await live.confirm(liveAd.delivery_token)).body).to.deep.equal({ status: 'confirmed', first_confirmation: true });
  });

  it('forces 204, 429 and 503 with X-Pilot-Test-Answer, refuses another value with 400, and a live key ignores it', async () => {
    const { publisher, server: live } = await approvedPublisher(system, owner, admin);
    const test = await testKeyOf(publisher.id);
    const empty = await adWith(test.key, { 'x-pilot-test-answer': '204' });
    expect(empty.status).to.equal(204);
    expect(empty.text).to.equal('');
    expect(empty.headers.get('pilot-no-fill-reason'), 'a forced 204 says why, as a live one does').to.equal('no_active_campaign');
    const limited = await adWith(test.key, { 'x-pilot-test-answer': '429' });
    expect(limited.status).to.equal(429);
    expect(limited.headers.get('ratelimit-remaining'), 'a forced 429 has nothing left, as a real one').to.equal('0');
    expect(limited.headers.get('content-type')).to.contain('application/problem+json');
    expect(limited.body).to.include({ code: 'rate_limited', status: 429 });
    expect(Number(limited.headers.get('retry-after'))).to.be.at.least(1);
    const unavailable = await adWith(test.key, { 'x-pilot-test-answer': '503' });
    expect(unavailable.status).to.equal(503);
    expect(unavailable.body).to.include({ code: 'service_unavailable', status: 503 });
    expect(Number(unavailable.headers.get('retry-after'))).to.be.at.least(1);
    for (const value of ['500', '200', 'teapot']) {
      const refused = await adWith(test.key, { 'x-pilot-test-answer': value });
      expect(refused.status, value).to.equal(400);
      expect(refused.body).to.include({ code: 'invalid_test_answer' });
    }
    const ignored = await adWith(live.key, { 'x-pilot-test-answer': '503' });
    expect(ignored.status, 'a live key never reads the header').to.equal(200);
    expect(ignored.headers.get('x-pilot-test')).to.equal(null);
  });

  it('forces 404 token_expired and 503 on a confirmation with X-Pilot-Test-Answer, refuses another value, and a live key ignores it', async () => {
    const { publisher, server: live } = await approvedPublisher(system, owner, admin);
    const test = await testKeyOf(publisher.id);
    const testAd = (await adWith(test.key)).body;
    const confirmWith = (key: string, token: string, answer: string) =>
      fetch(`${system.baseUrl}/api/network/delivery`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-pilot-test-answer': answer },
        body: JSON.stringify({ token }),
      }).then(async (r) => ({ status: r.status, headers: r.headers, body: (await r.json()) as Record<string, unknown> }));
    const expired = await confirmWith(test.key, testAd.delivery_token, '404');
    expect(expired.status).to.equal(404);
    expect(expired.body).to.include({ code: 'token_expired', status: 404 });
    expect(expired.headers.get('x-pilot-test')).to.equal('true');
    const unavailable = await confirmWith(test.key, testAd.delivery_token, '503');
    expect(unavailable.status).to.equal(503);
    expect(unavailable.body).to.include({ code: 'service_unavailable' });
    expect(Number(unavailable.headers.get('retry-after'))).to.be.at.least(1);
    for (const value of ['204', '429', 'teapot']) {
      const refused = await confirmWith(test.key, testAd.delivery_token, value);
      expect(refused.status, value).to.equal(400);
      expect(refused.body, value).to.include({ code: 'invalid_test_answer' });
    }
    const malformed = await confirmWith(test.key, 'not a token', '404');
    expect(malformed.body, 'a malformed body is refused before any forced answer').to.include({ code: 'invalid_token' });
    // Nothing forced was recorded: the first real confirmation is still the first.
    expect((await test.confirm(testAd.delivery_token)).body).to.deep.equal({ status: 'confirmed', first_confirmation: true });
    const liveAd = (await adWith(live.key)).body;
    const ignored = await confirmWith(live.key, liveAd.delivery_token, '503');
    expect(ignored.status, 'a live key never reads the header').to.equal(200);
    expect(ignored.body).to.deep.equal({ status: 'confirmed', first_confirmation: true });
    expect(ignored.headers.get('x-pilot-test')).to.equal(null);
  });

  it('applies 60 ad requests a minute to the test keys of one account together, apart from live keys and other accounts', async () => {
    // An account of its own, so the other tests' test keys keep their window.
    const heavy = await signedIn(system, '6003');
    const platformOf = async (serial: number): Promise<number> => {
      const created = await heavy.post<{ id: number }>('/api/workspace/publishers', { type: 'bot', link: `@sandbox_heavy_${serial}_bot` });
      expect(created.status, created.text).to.equal(201);
      return created.body.id;
    };
    const testKeyOfHeavy = async (id: number): Promise<string> => {
      const made = await heavy.post<{ key: string }>(`/api/workspace/publishers/${id}/test-key`);
      expect(made.status, made.text).to.equal(201);
      return made.body.key;
    };
    const id = await platformOf(1);
    const first = await testKeyOfHeavy(id);
    const second = await testKeyOfHeavy(await platformOf(2));
    for (let i = 1; i <= 60; i += 1) {
      const answer = await adWith(i % 2 === 0 ? first : second, i % 3 === 0 ? { 'x-pilot-test-answer': '204' } : {});
      expect(answer.status, `request ${i}`).to.be.oneOf([200, 204]);
    }
    for (const key of [first, second, await testKeyOfHeavy(await platformOf(3))]) {
      const over = await adWith(key);
      expect(over.status, 'a new platform brings no new window').to.equal(429);
      expect(over.body).to.include({ code: 'rate_limited' });
      expect(over.headers.get('ratelimit-remaining')).to.equal('0');
    }
    // Another account's test key, and the live key of the same platform, have windows of their own.
    expect((await adWith((await testKeyOf(await draftPlatform())).key)).status).to.equal(200);
    expect((await heavy.post(`/api/workspace/publishers/${id}/submit`)).status).to.equal(200);
    expect((await admin.post(`/api/workspace/publishers/${id}/approve`)).status).to.equal(200);
    const liveKey = await heavy.post<{ key: string }>(`/api/workspace/publishers/${id}/keys`);
    expect((await adWith(liveKey.body.key)).status).to.equal(200);
  });

  it('stops a revoked test key at once and leaves the live key working; a live rotation leaves the test key', async () => {
    const { publisher, server: live } = await approvedPublisher(system, owner, admin);
    const test = await testKeyOf(publisher.id);
    const rotated = await owner.post<{ key: string }>(`/api/workspace/publishers/${publisher.id}/keys`);
    expect(rotated.status).to.equal(201);
    expect((await adWith(live.key)).body).to.include({ code: 'invalid_key' });
    expect((await adWith(test.key)).status, 'the test key after a live rotation').to.equal(200);
    expect((await owner.call('DELETE', `/api/workspace/publishers/${publisher.id}/test-key`)).status).to.equal(204);
    const refused = await adWith(test.key);
    expect(refused.status).to.equal(401);
    expect(refused.body).to.include({ code: 'invalid_key' });
    expect((await adWith(rotated.body.key)).status, 'the live key after the test key is revoked').to.equal(200);
  });

  it('shows on the platform when an ad request last used its live key and its test key, each apart', async () => {
    const { publisher, server: live } = await approvedPublisher(system, owner, admin);
    const test = await testKeyOf(publisher.id);
    type Uses = { keyLastUsedAt: string | null; testKeyLastUsedAt: string | null };
    // The platform leaves the two fields out when Redis does not answer in time: asked again then.
    const uses = () =>
      waitFor(async () => {
        const answer = await owner.get<Uses>(`/api/workspace/publishers/${publisher.id}`);
        expect(answer.status, answer.text).to.equal(200);
        return 'keyLastUsedAt' in answer.body && 'testKeyLastUsedAt' in answer.body ? answer.body : null;
      });
    // Allocation notes a use without making the ad request wait for it.
    const shown = (field: keyof Uses) =>
      waitFor(
        async () => {
          const seen = await uses();
          return seen[field] ? seen : null;
        },
        { message: `${field} shown` },
      );
    expect(await uses()).to.include({ keyLastUsedAt: null, testKeyLastUsedAt: null });

    const beforeLive = Date.now();
    expect((await live.ad()).status).to.equal(200);
    const afterLive = await shown('keyLastUsedAt');
    expect(Date.parse(afterLive.keyLastUsedAt ?? '')).to.be.within(beforeLive - 1_000, Date.now());
    expect(afterLive.testKeyLastUsedAt, 'the test key was not used').to.equal(null);

    expect((await adWith(test.key)).status).to.equal(200);
    const afterTest = await shown('testKeyLastUsedAt');
    expect(afterTest.keyLastUsedAt, 'the live key\'s use is kept').to.equal(afterLive.keyLastUsedAt);
  });

  it('keeps a test key working while the platform is paused, when its live key is refused', async () => {
    const { publisher, server: live } = await approvedPublisher(system, owner, admin);
    const test = await testKeyOf(publisher.id);
    expect((await admin.post(`/api/workspace/publishers/${publisher.id}/pause`)).status).to.equal(200);
    expect((await adWith(live.key)).body).to.include({ code: 'publisher_not_approved' });
    expect((await adWith(test.key)).status).to.equal(200);
  });

  it('counts a live key\'s 204s as the publisher\'s unfilled ad requests, beside the three totals', async () => {
    // Only bot campaigns are active: a channel gets 204.
    const { publisher, server } = await approvedPublisher(system, owner, admin, 'channel');
    const before = { owner: await figures(owner), advertiser: await figures(advertiser), admin: await figures(admin) };
    expect((await server.ad('en')).status).to.equal(204);
    expect((await server.ad('tr')).status).to.equal(204);
    expect((await server.ad('english')).status, 'a refused language is not an unfilled request').to.equal(400);
    expect(await figures(owner, `?publisherId=${publisher.id}`)).to.deep.equal({ adRequests: 0, confirmedDeliveries: 0, clickedLinks: 0, unfilledAdRequests: 2 });
    expect(await figures(owner)).to.deep.equal({ ...before.owner, unfilledAdRequests: before.owner.unfilledAdRequests + 2 });
    expect(await figures(admin)).to.deep.equal({ ...before.admin, unfilledAdRequests: before.admin.unfilledAdRequests + 2 });
    expect(await figures(advertiser), 'not the advertiser\'s').to.deep.equal(before.advertiser);
    const days = await owner.get<{ days: Array<Figures & { date: string }> }>(`/api/workspace/stats?publisherId=${publisher.id}`);
    expect(days.body.days).to.have.length(1);
    expect(days.body.days[0]).to.include({ unfilledAdRequests: 2, adRequests: 0 });
  });
});
