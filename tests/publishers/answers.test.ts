/**
 * Answers that explain themselves, through the gateway of the whole system: a 204 says why in
 * Pilot-No-Fill-Reason; every problem's type is the site's page of its code; one rule for methods a network
 * path does not serve (405 with Allow); a GET with a body is refused with Cache-Control: no-store and no
 * RateLimit headers; no bearer key is missing_key, a refused one carries error="invalid_token"; every
 * answer carries X-Request-Id; the pages the types point to are pages of the site.
 */
import { waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { signedIn, type Browser } from '../e2e/support/clients';
import { sendRaw } from '../e2e/support/raw-http';
import { activeCampaign, approvedPublisher } from '../e2e/support/scenario';
import { ADMIN_ID, startSystem, type System } from '../e2e/support/system';

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text && /json/.test(response.headers.get('content-type') ?? '') ? JSON.parse(text) : {} };
}

describe('answers that explain themselves, through the gateway', function () {
  this.timeout(180_000);
  let system: System;
  let admin: Browser;
  let advertiser: Browser;
  let owner: Browser;
  let botKey: string;

  const call = (path: string, init: RequestInit = {}) => fetch(`${system.baseUrl}${path}`, { redirect: 'manual', ...init }).then(answerOf);
  const adFor = (key: string, language = 'en') => call(`/api/network/ad?language=${language}`, { headers: { authorization: `Bearer ${key}` } });
  const pageOf = (code: string) => `${system.baseUrl}/guide/errors#${code}`;

  before(async () => {
    system = await startSystem();
    admin = await signedIn(system, ADMIN_ID);
    advertiser = await signedIn(system, '6101');
    owner = await signedIn(system, '6102');
    botKey = (await approvedPublisher(system, owner, admin)).server.key;
  });

  after(async () => {
    await system?.stop();
  });

  it('says why a 204 has no ad: nothing active, nothing of the format, nothing in the language, only own campaigns', async () => {
    const none = await adFor(botKey);
    expect(none.status).to.equal(204);
    expect(none.headers.get('pilot-no-fill-reason')).to.equal('no_active_campaign');

    await activeCampaign(advertiser, admin, { format: 'channel', language: 'all' });
    const format = await waitFor(async () => {
      const answer = await adFor(botKey);
      return answer.headers.get('pilot-no-fill-reason') === 'no_active_campaign' ? null : answer;
    }, { message: 'the channel campaign in the cache', intervalMs: 200 });
    expect(format.status).to.equal(204);
    expect(format.headers.get('pilot-no-fill-reason')).to.equal('no_campaign_for_format');

    await activeCampaign(advertiser, admin, { format: 'bot', language: 'tr' });
    const language = await waitFor(async () => {
      const answer = await adFor(botKey, 'de');
      return answer.headers.get('pilot-no-fill-reason') === 'no_campaign_for_format' ? null : answer;
    }, { message: 'the bot campaign in the cache', intervalMs: 200 });
    expect(language.headers.get('pilot-no-fill-reason')).to.equal('no_campaign_for_language');
    expect(language.headers.get('cache-control')).to.contain('no-store');

    await activeCampaign(owner, admin, { format: 'bot', language: 'de' });
    const own = await waitFor(async () => {
      const answer = await adFor(botKey, 'de');
      return answer.headers.get('pilot-no-fill-reason') === 'no_campaign_for_language' ? null : answer;
    }, { message: 'the own campaign in the cache', intervalMs: 200 });
    expect(own.status).to.equal(204);
    expect(own.headers.get('pilot-no-fill-reason')).to.equal('own_campaigns_only');
    expect((await adFor(botKey, 'tr')).status, 'a 200 carries no reason').to.equal(200);
    expect((await adFor(botKey, 'tr')).headers.get('pilot-no-fill-reason')).to.equal(null);
  });

  it('gives every problem, whichever service answers it, the site\'s page of its code as type', async () => {
    const answers = [
      await call('/api/network/ad'), // allocation: missing_key
      await call('/api/network/delivery', { method: 'POST', headers: { authorization: `Bearer ${botKey}` }, body: '{' }), // tracking: invalid_json
      await call('/api/nothing-here'), // gateway: route_not_found
      await call('/api/workspace/campaigns'), // gateway: not_signed_in
      await call('/api/site/placements/no-such-slot'), // placement
    ];
    const campaign = await advertiser.post('/api/workspace/campaigns', {}); // campaign: validation_failed
    for (const answer of [...answers, { status: campaign.status, body: campaign.body as Record<string, unknown> }]) {
      expect(answer.status).to.be.at.least(400);
      expect(answer.body.type, String(answer.body.code)).to.equal(pageOf(String(answer.body.code)));
    }
    const page = await fetch(`${system.baseUrl}/guide/errors`);
    expect(page.status, 'the page the types point to').to.equal(200);
    expect(page.headers.get('content-type')).to.contain('text/html');
  });

  it('answers a method a network path does not serve with 405 method_not_allowed and Allow, on every network path', async () => {
    const cases: [string, string, string][] = [
      ['POST', '/api/network/ad', 'GET'],
      ['OPTIONS', '/api/network/ad', 'GET'],
      ['DELETE', '/api/network/delivery', 'POST'],
      ['GET', '/api/network/delivery', 'POST'],
      ['POST', '/api/network/click/AkNnFT0xnoFS', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const answer = await call(path, { method, headers: { authorization: `Bearer ${botKey}` } });
      expect(answer.status, `${method} ${path}`).to.equal(405);
      expect(answer.headers.get('allow'), `${method} ${path}`).to.equal(allow);
      expect(answer.headers.get('content-type')).to.contain('application/problem+json');
      expect(answer.body).to.include({ code: 'method_not_allowed', type: pageOf('method_not_allowed') });
    }
  });

  it('refuses a GET with a body with 400 body_not_allowed, Cache-Control: no-store and no RateLimit headers (nothing used up)', async () => {
    const port = Number(new URL(system.baseUrl).port);
    for (const path of ['/api/network/ad?language=en', '/api/network/click/AkNnFT0xnoFS']) {
      const answer = await sendRaw(port, {
        method: 'GET',
        path,
        headers: [['Authorization', `Bearer ${botKey}`], ['Content-Type', 'application/json']],
        body: Buffer.from('{"language":"en"}'),
      });
      expect(answer.status, path).to.equal(400);
      expect(JSON.parse(answer.body)).to.include({ code: 'body_not_allowed' });
      expect(answer.head.toLowerCase(), path).to.contain('cache-control: no-store');
      expect(answer.head.toLowerCase(), path).to.not.contain('ratelimit-');
      expect(answer.head.toLowerCase(), path).to.match(/\r\nx-request-id: \S+/);
    }
  });

  it('answers missing_key for another scheme than Bearer, and adds error="invalid_token" for a refused bearer key', async () => {
    const basic = await call('/api/network/ad', { headers: { authorization: `Basic ${botKey}` } });
    expect(basic.status).to.equal(401);
    expect(basic.body.code).to.equal('missing_key');
    expect(basic.headers.get('www-authenticate')).to.equal('Bearer realm="pilot-network"');
    const wrong = await call('/api/network/delivery', {
      method: 'POST',
      headers: { authorization: `Bearer ${botKey.slice(0, -1)}${botKey.endsWith('x') ? 'y' : 'x'}`, 'content-type': 'application/json' },
      body: '{"token":"x"}',
    });
    expect(wrong.body.code).to.equal('invalid_key');
    expect(wrong.headers.get('www-authenticate')).to.equal('Bearer realm="pilot-network", error="invalid_token", error_description="invalid_key"');
  });

  it('puts X-Request-Id on every answer, each its own', async () => {
    const answers = [await adFor(botKey, 'tr'), await adFor(botKey, 'zz'), await call('/api/network/ad'), await call('/api/network/ad', { method: 'POST' })];
    const ids = answers.map((answer) => answer.headers.get('x-request-id'));
    for (const id of ids) expect(id).to.be.a('string').and.not.equal('');
    expect(new Set(ids).size).to.equal(ids.length);
  });
});
