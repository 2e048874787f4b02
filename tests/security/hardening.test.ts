/**
 * Security checks beside tests/e2e/security.test.ts, for what it leaves out: every page and asset the
 * site serves (CSP without inline script, nosniff, frame-ancestors, and no inline script in the HTML
 * itself), origins that only look like the site's, NoSQL operators in query strings and in the bodies of
 * the other write families, click tokens tampered with or used for another purpose, the Secure flag on
 * cookies of an https site, smuggling-shaped and broken requests, and error answers of every other kind.
 */
import { waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { Browser, botConfirms, openLink, signedIn, type Answer, type PublisherServer } from '../e2e/support/clients';
import { sendRaw } from '../e2e/support/raw-http';
import { activeCampaign, approvedPublisher, campaignInput } from '../e2e/support/scenario';
import { ADMIN_ID, startSystem, type System } from '../e2e/support/system';
import { LEAK_PATTERNS, observe, withoutProblemTypes } from '../faults/support/traffic';

function expectNoLeak(text: string, context: string): void {
  for (const pattern of LEAK_PATTERNS) expect(withoutProblemTypes(text), `${context} leaks ${pattern}`).to.not.match(pattern);
}

function expectProblem(answer: Answer, context: string): void {
  expect(answer.status, `${context}: ${answer.text.slice(0, 200)}`).to.be.within(400, 499);
  expect(answer.headers.get('content-type'), context).to.match(/^application\/problem\+json/);
  expect(answer.headers.get('x-content-type-options'), context).to.equal('nosniff');
  expectNoLeak(answer.text, context);
}

/** A request with exactly these headers (no cookie jar, no defaults). */
async function plain(system: System, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  const response = await fetch(`${system.baseUrl}${path}`, { method, headers, body, redirect: 'manual' });
  return { status: response.status, headers: response.headers, body: {}, text: await response.text() };
}

describe('security hardening through the gateway', function () {
  this.timeout(120_000);
  let system: System;
  let admin: Browser;
  let advertiser: Browser;
  let owner: Browser;
  let other: Browser;
  let server: PublisherServer;

  before(async () => {
    system = await startSystem();
    admin = await signedIn(system, ADMIN_ID);
    advertiser = await signedIn(system, '9701');
    owner = await signedIn(system, '9702');
    other = await signedIn(system, '9703');
    await activeCampaign(advertiser, admin, { language: 'it', destinationUrl: 'https://advertiser.example/landing?x=1' });
    await activeCampaign(other, admin, { language: 'it' });
    server = (await approvedPublisher(system, owner, admin)).server;
  });

  after(async () => {
    await system?.stop();
  });

  it('serves every page with a strict CSP, nosniff and frame-ancestors, and no inline script in the HTML', async () => {
    // A page the app does not have answers 404 with the app, which shows its not-found page.
    const pages: Array<[string, number]> = [
      ['/', 200],
      ['/workspace', 200],
      ['/workspace/campaigns', 200],
      ['/login', 404],
      ['/some/deep/route', 404],
      ['/campaigns/12?x=%3Cscript%3E', 404],
      ['/workspace/campaigns/12?x=%3Cscript%3E', 200],
    ];
    let html = '';
    for (const [path, status] of pages) {
      const response = await fetch(`${system.baseUrl}${path}`);
      html = await response.text();
      expect(response.status, path).to.equal(status);
      expect(response.headers.get('content-type'), path).to.match(/^text\/html/);
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp, path).to.contain("frame-ancestors 'none'");
      const scriptSrc = /script-src ([^;]+)/.exec(csp)?.[1] ?? /default-src ([^;]+)/.exec(csp)?.[1] ?? '';
      expect(scriptSrc, `${path} script-src`).to.contain("'self'");
      expect(scriptSrc, `${path} script-src`).to.not.match(/'unsafe-inline'|'unsafe-eval'|\*|data:/);
      expect(csp, path).to.match(/object-src 'none'|default-src 'none'|default-src 'self'/);
      expect(response.headers.get('x-content-type-options'), path).to.equal('nosniff');
      // What the CSP forbids is not needed by the page itself: every script is a file, no handler attributes.
      for (const tag of html.match(/<script\b[^>]*>[\s\S]*?<\/script>/gi) ?? []) {
        expect(tag, `${path} inline script`).to.match(/<script\b[^>]*\bsrc=/i);
        expect(tag.replace(/<script\b[^>]*>/i, '').replace(/<\/script>$/i, '').trim(), `${path} script body`).to.equal('');
      }
      expect(html, `${path} inline handler`).to.not.match(/\son[a-z]+\s*=/i);
      expect(html, `${path} reflects the query`).to.not.contain('<script>');
    }
    const assets = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((match) => match[1] as string);
    expect(assets.length, 'the page loads its scripts and styles from /assets/').to.be.greaterThan(0);
    for (const asset of assets) {
      const response = await fetch(`${system.baseUrl}${asset}`);
      expect(response.status, asset).to.equal(200);
      expect(response.headers.get('x-content-type-options'), asset).to.equal('nosniff');
      expect(response.headers.get('content-type'), asset).to.match(/javascript|css|image|font/);
    }
    const missing = await fetch(`${system.baseUrl}/assets/nothing-${Date.now()}.js`);
    expect(missing.status).to.equal(404);
    expect(missing.headers.get('x-content-type-options')).to.equal('nosniff');
    expectNoLeak(await missing.text(), 'a missing asset');
  });

  it('refuses writes from origins that only look like the site, and writes nothing', async () => {
    const site = new URL(system.origin);
    const lookalikes = [
      `${system.origin}.evil.example`,
      `http://${site.hostname}:${Number(site.port) + 1}`,
      `https://${site.host}`,
      `http://localhost:${site.port}`,
      `http://evil.example/${site.host}`,
      `${system.origin}@evil.example`,
    ];
    const before = await advertiser.get<{ items: unknown[] }>('/api/workspace/campaigns');
    for (const origin of lookalikes) {
      const answer = await advertiser.call('POST', '/api/workspace/campaigns', campaignInput(), { origin });
      expect(answer.status, origin).to.equal(403);
      expectProblem(answer, `write from ${origin}`);
    }
    // No Origin, only a Referer of another site, as an old browser sends it: refused as well.
    const byReferer = await fetch(`${system.baseUrl}/api/workspace/campaigns`, {
      method: 'POST',
      headers: { cookie: advertiser.cookieHeader(), 'content-type': 'application/json', referer: 'https://evil.example/page' },
      body: JSON.stringify(campaignInput()),
    });
    expect(byReferer.status).to.equal(403);
    const after = await advertiser.get<{ items: unknown[] }>('/api/workspace/campaigns');
    expect(after.body.items.length).to.equal(before.body.items.length);
  });

  it('refuses NoSQL operators in query strings and in the bodies of publishers, placements and sign-in', async () => {
    const operatorQueries = [
      '/api/workspace/stats?campaignId[$ne]=0',
      '/api/workspace/stats?from[$gt]=2000-01-01',
      '/api/workspace/audit?entity[$ne]=x&entityId[$gt]=0',
      '/api/workspace/campaigns?status[$in][]=active&status[$in][]=draft',
      '/api/workspace/publishers?status[$ne]=draft',
      `/api/workspace/campaigns/${encodeURIComponent('{"$ne":null}')}`,
      `/api/workspace/publishers/${encodeURIComponent('{"$gt":0}')}`,
      `/api/auth/login/${encodeURIComponent('{"$ne":null}')}`,
    ];
    for (const path of operatorQueries) {
      const answer = await other.get<{ items?: { ownerAccountId?: string }[]; adRequests?: number }>(path);
      observe(`operator query ${path}`, answer.status);
      expect(answer.status, `${path}: ${answer.text.slice(0, 200)}`).to.be.below(500);
      if (answer.status >= 400) {
        expectProblem(answer, path);
        continue;
      }
      // Accepted: the bracketed parameter was read as an unknown name and ignored, so the answer is
      // exactly the one without it (and holds only this account's records).
      const url = new URL(path, system.baseUrl);
      for (const name of [...url.searchParams.keys()]) if (name.includes('[')) url.searchParams.delete(name);
      const plainAnswer = await other.get(`${url.pathname}${url.search}`);
      expect(plainAnswer.status, path).to.equal(200);
      expect(answer.body, path).to.deep.equal(plainAnswer.body);
      for (const item of answer.body.items ?? []) expect(item.ownerAccountId, path).to.be.oneOf([undefined, '9703']);
    }
    const operatorBodies: [string, string, unknown][] = [
      ['POST', '/api/workspace/publishers', { type: 'bot', link: { $regex: '.*' } }],
      ['POST', '/api/workspace/publishers', { type: { $ne: 'x' }, link: '@some_bot' }],
      ['PUT', '/api/workspace/placements/home-feature', { title: { $gt: '' }, buttonText: 'b', destinationUrl: 'https://a.example/', status: 'active' }],
      ['POST', '/api/workspace/campaigns/1/reject', { reason: { $ne: null } }],
      ['POST', '/api/workspace/publishers/1/reject', { reason: { $where: 'sleep(100)' } }],
      ['POST', '/api/site/placements/home-feature/impressions', { $set: { count: 1000 } }],
    ];
    for (const [method, path, body] of operatorBodies) {
      const answer = await admin.call(method, path, body);
      observe(`operator body ${method} ${path}`, answer.status);
      expect(answer.status, `${method} ${path}: ${answer.text.slice(0, 200)}`).to.be.oneOf([400, 404, 409, 422]);
      expectProblem(answer, `${method} ${path}`);
    }
    const webhook = await fetch(`${system.baseUrl}/api/auth/telegram-webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 'e2e-webhook-secret-0123456789abcdef' },
      body: JSON.stringify({ update_id: 1, message: { chat: { id: 1 }, from: { id: { $gt: 0 } }, text: { $ne: null } } }),
    });
    expect(webhook.status).to.be.below(500);
    const publishers = await admin.get<{ items: { link: unknown }[] }>('/api/workspace/publishers');
    for (const item of publishers.body.items) expect(item.link).to.be.a('string');
  });

  it('redirects a click only to its campaign, and only with an untouched click token', async () => {
    const ad = await waitFor(async () => {
      const answer = await server.ad('it');
      return answer.status === 200 ? (answer.body as { delivery_token: string; click_url: string; campaign_id: number }) : null;
    });
    const click = new URL(ad.click_url);
    expect(click.origin, 'click links stay on the site').to.equal(system.origin);
    const token = click.pathname.split('/').pop() as string;
    const flipped = token.slice(0, -2) + (token.at(-2) === 'A' ? 'B' : 'A') + token.at(-1);
    const candidates: [string, string][] = [
      [`delivery token as a click token`, `/api/network/click/${encodeURIComponent(ad.delivery_token)}`],
      ['a flipped character', `/api/network/click/${flipped}`],
      ['a truncated token', `/api/network/click/${token.slice(0, -4)}`],
      ['an appended redirect', `/api/network/click/${token}?url=https://evil.example/`],
      ['a second path segment', `/api/network/click/${token}/https:%2F%2Fevil.example`],
    ];
    for (const [name, path] of candidates) {
      const answer = await openLink(`${system.baseUrl}${path}`);
      const location = answer.headers.get('location');
      observe(`click with ${name}`, answer.status);
      if (answer.status === 302) expect(location, name).to.match(/^https:\/\/advertiser\.example\//);
      else {
        expect(answer.status, name).to.be.oneOf([400, 404]);
        expect(location, name).to.equal(null);
        expectNoLeak(answer.text, name);
      }
    }
    const real = await openLink(ad.click_url);
    expect(real.status).to.equal(302);
    const campaign = await admin.get<{ destinationUrl: string }>(`/api/workspace/campaigns/${ad.campaign_id}`);
    expect(campaign.status).to.equal(200);
    expect(real.headers.get('location')).to.equal(campaign.body.destinationUrl);
    // The click token does not confirm a delivery either.
    const confirmedWithClick = await server.confirm(token);
    expect(confirmedWithClick.status).to.be.oneOf([400, 404, 422]);
  });

  it('answers smuggling-shaped and broken requests with 4xx, and stays up', async () => {
    const port = Number(new URL(system.baseUrl).port);
    const body = Buffer.from('{"token":"x"}');
    const requests: [string, [string, string][], Buffer | undefined][] = [
      ['both Content-Length and Transfer-Encoding', [['Content-Length', String(body.length)], ['Transfer-Encoding', 'chunked']], body],
      ['two different Content-Lengths', [['Content-Length', '3'], ['Content-Length', String(body.length)]], body],
      ['an obfuscated Transfer-Encoding', [['Transfer-Encoding', 'xchunked']], body],
      ['a header without a colon', [['X-Broken', 'value\r\nno colon here']], undefined],
      ['a space before the colon', [['Authorization ', `Bearer ${server.key}`]], undefined],
      ['64 KB of headers', Array.from({ length: 64 }, (_, i): [string, string] => [`X-Filler-${i}`, 'x'.repeat(1000)]), undefined],
    ];
    for (const [name, headers, payload] of requests) {
      const answer = await sendRaw(port, { method: 'POST', path: '/api/network/delivery', headers, body: payload });
      observe(`raw request with ${name}`, answer.status);
      expect(answer.status, `${name}: ${answer.head.split('\r\n')[0]}`).to.be.within(400, 499);
      expectNoLeak(answer.body, name);
    }
    const garbage = await sendRaw(port, { method: '\u0000\u0001GARBAGE', path: '\\\\', headers: [] });
    expect(garbage.status === 0 || (garbage.status >= 400 && garbage.status < 500), `garbage answered ${garbage.status}`).to.equal(true);
    expect((await fetch(`${system.baseUrl}/readyz`)).status).to.equal(200);
    expect((await server.ad('it')).status).to.be.oneOf([200, 204]);
  });

  it('answers every other kind of error as a problem that leaks nothing', async () => {
    const huge = JSON.stringify(campaignInput({ text: 'x'.repeat(200_000) }));
    const answers: [string, Answer][] = [
      ['405 on the ad endpoint', await plain(system, 'DELETE', '/api/network/ad', { authorization: `Bearer ${server.key}` })],
      ['413 body too large', await plain(system, 'POST', '/api/workspace/campaigns', { origin: system.origin, cookie: advertiser.cookieHeader(), 'content-type': 'application/json' }, huge)],
      ['unknown key', await new Browser(system).call('GET', '/api/network/ad', undefined, { authorization: 'Bearer pilot_pk_0000000000000000000000000000000000000000' })],
      ['invalid language', await server.ad('english')],
      ['wrong content type', await advertiser.call('POST', '/api/workspace/campaigns', undefined, { 'content-type': 'text/plain' })],
      ['expired login request', await advertiser.get('/api/auth/login/00000000-0000-4000-8000-000000000000')],
      ['another account\'s campaign', await owner.get('/api/workspace/campaigns/1')],
      ['admin action by a non-admin', await owner.post('/api/workspace/campaigns/1/approve')],
      ['webhook without its secret', await new Browser(system).call('POST', '/api/auth/telegram-webhook', {}, { 'x-telegram-bot-api-secret-token': 'wrong' })],
    ];
    for (const [context, answer] of answers) observe(`error: ${context}`, answer.status);
    for (const [context, answer] of answers) expectProblem(answer, context);
  });

  it('marks the binding and session cookies Secure when the site is served over https, the session cookie __Host- prefixed', async () => {
    const site = 'https://pilot.example';
    const https = await startSystem({ settings: { 'publisher-identity': { PUBLIC_BASE_URL: site }, gateway: { PUBLIC_BASE_URL: site } } });
    try {
      const login = await fetch(`${https.baseUrl}/api/auth/login`, { method: 'POST', headers: { origin: site } });
      expect(login.status).to.equal(201);
      const binding = login.headers.getSetCookie();
      expect(binding.length).to.be.greaterThan(0);
      for (const cookie of binding) expect(cookie).to.match(/;\s*Secure/i);
      const { requestId, code } = (await login.json()) as { requestId: string; code: string };
      expect((await botConfirms(https, code, '9704')).status).to.equal(200);
      const confirmed = await fetch(`${https.baseUrl}/api/auth/login/${requestId}`, {
        headers: { cookie: binding.map((line) => line.split(';')[0]).join('; ') },
      });
      const setCookies = confirmed.headers.getSetCookie();
      expect(setCookies.find((line) => line.startsWith('pilot_session='))).to.equal(undefined);
      const session = setCookies.find((line) => line.startsWith('__Host-pilot_session='));
      expect(session).to.match(/;\s*Secure/i);
      expect(session).to.match(/HttpOnly/i);
      expect(session).to.match(/;\s*Path=\/(;|$)/);
      expect(session).not.to.match(/Domain=/i);
      // The gateway reads the prefixed name: the session works through it, the unprefixed name does not.
      const pair = (session as string).split(';')[0] as string;
      const signedInAnswer = await fetch(`${https.baseUrl}/api/auth/session`, { headers: { cookie: pair } });
      expect(signedInAnswer.status).to.equal(200);
      const workspace = await fetch(`${https.baseUrl}/api/workspace/campaigns`, { headers: { cookie: pair } });
      expect(workspace.status).to.equal(200);
      const unprefixed = await fetch(`${https.baseUrl}/api/workspace/campaigns`, { headers: { cookie: pair.replace('__Host-', '') } });
      expect(unprefixed.status).to.equal(401);
    } finally {
      await https.stop();
    }
  });

});
