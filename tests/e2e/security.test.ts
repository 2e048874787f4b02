/**
 * Security properties of the whole system, checked through the gateway: secrets never reach a log,
 * operator injection and open redirects are refused, sessions cannot be fixed, cookies and pages carry
 * the right flags and headers, every write family is origin-checked, logins are rate limited, and error
 * bodies leak nothing about the inside.
 */
import { buttonUpdate, questionButton, startUpdate, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { Browser, botConfirms, botUpdate, openLink, signedIn, type Answer } from './support/clients';
import { activeCampaign, approvedPublisher, campaignInput } from './support/scenario';
import { withoutProblemTypes } from '../faults/support/traffic';
import { ADMIN_ID, startSystem, type System } from './support/system';

const LEAK_PATTERNS = [/\bat [^\s]+ \(/, /node_modules/, /Mongo(Server)?Error/i, /ECONNREFUSED/, /127\.0\.0\.1:\d{4,5}/, /stack/i];

function expectNoLeak(answer: Answer, context: string): void {
  for (const pattern of LEAK_PATTERNS) expect(withoutProblemTypes(answer.text), `${context} leaks ${pattern}`).to.not.match(pattern);
}

async function rawPost(system: System, browser: Browser, path: string, body: string): Promise<Answer> {
  const response = await fetch(`${system.baseUrl}${path}`, {
    method: 'POST',
    headers: { origin: system.origin, cookie: browser.cookieHeader(), 'content-type': 'application/json' },
    body,
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : {}, text };
}

describe('security through the gateway', function () {
  this.timeout(120_000);
  const logLines: string[] = [];
  let system: System;
  let admin: Browser;
  let advertiser: Browser;
  let owner: Browser;

  before(async () => {
    system = await startSystem({
      logLevel: 'debug',
      logSink: { write: (line: string) => void logLines.push(line) },
      settings: { 'publisher-identity': { LOGIN_LIMIT_POINTS: '200' } },
    });
    admin = await signedIn(system, ADMIN_ID);
    advertiser = await signedIn(system, '7001');
    owner = await signedIn(system, '7002');
  });

  after(async () => {
    await system?.stop();
  });

  it('never writes a key, token, cookie, login code or webhook secret to any log', async () => {
    await activeCampaign(advertiser, admin);
    const { server } = await approvedPublisher(system, owner, admin);
    const ad = await waitFor(async () => {
      const answer = await server.ad();
      return answer.status === 200 ? (answer.body as { delivery_token: string; click_url: string }) : null;
    });
    await server.confirm(ad.delivery_token);
    await openLink(ad.click_url);
    const browser = new Browser(system);
    const login = await browser.post<{ requestId: string; code: string }>('/api/auth/login');
    await botConfirms(system, login.body.code, '7003');
    await browser.get(`/api/auth/login/${login.body.requestId}`);
    const sessionCookie = browser.cookieHeader();

    const secrets = {
      key: server.key,
      deliveryToken: ad.delivery_token,
      clickToken: new URL(ad.click_url).pathname.split('/').pop() as string,
      loginCode: login.body.code,
      webhookSecret: 'e2e-webhook-secret-0123456789abcdef',
      ...Object.fromEntries(
        sessionCookie
          .split('; ')
          .map((pair) => pair.split('='))
          .map(([name, value]) => [`cookie ${name}`, value as string]),
      ),
    };
    expect(logLines.length).to.be.greaterThan(20);
    const everything = logLines.join('\n');
    for (const [name, value] of Object.entries(secrets)) {
      expect(value, name).to.have.length.greaterThan(10);
      expect(everything.includes(value), `${name} appears in a log line`).to.equal(false);
    }
  });

  it('answers 400, never 500, for names of Object.prototype where a query names an entity', async () => {
    for (const entity of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const answer = await admin.get<{ code: string }>(`/api/workspace/audit?entity=${entity}`);
      expect(answer.status, entity).to.equal(400);
      expect(answer.body.code, entity).to.equal('invalid_entity');
    }
  });

  it('refuses NoSQL operator objects where strings are expected', async () => {
    const { server } = await approvedPublisher(system, owner, admin);
    for (const token of [{ $ne: null }, { $gt: '' }, ['a'], 1]) {
      const answer = await fetch(`${system.baseUrl}/api/network/delivery`, {
        method: 'POST',
        headers: { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
      });
      expect(answer.status, JSON.stringify(token)).to.equal(400);
    }
    const injected = await advertiser.post('/api/workspace/campaigns', campaignInput({ title: { $gt: '' }, language: { $ne: 'x' } }));
    expect(injected.status).to.equal(422);
    const byOperatorId = await advertiser.get(`/api/workspace/campaigns/${encodeURIComponent('{"$gt":0}')}`);
    expect(byOperatorId.status).to.be.oneOf([400, 404]);
    const listed = await advertiser.get('/api/workspace/campaigns?status[$ne]=draft');
    expect(listed.status).to.be.oneOf([200, 400]);
    if (listed.status === 200) {
      const items = (listed.body as { items: { ownerAccountId: string }[] }).items;
      expect(items.every((item) => item.ownerAccountId === '7001')).to.equal(true);
    }
  });

  it('makes open redirects impossible: destinations must be HTTPS without credentials and tokens are signed', async () => {
    for (const destinationUrl of ['javascript:alert(1)', 'http://advertiser.example', '//evil.example', 'https://user:pw@evil.example/', 'data:text/html,x']) {
      const answer = await advertiser.post('/api/workspace/campaigns', campaignInput({ destinationUrl }));
      expect(answer.status, destinationUrl).to.equal(422);
    }
    for (const destinationUrl of ['javascript:alert(1)', 'http://pilot.example', 'https://a:b@pilot.example']) {
      const answer = await admin.put('/api/workspace/placements/tr-footer', {
        title: 'x',
        buttonText: 'y',
        destinationUrl,
        status: 'active',
      });
      expect(answer.status, destinationUrl).to.equal(422);
    }
    const forged = await openLink(`${system.baseUrl}/api/network/click/${'A'.repeat(80)}`);
    expect(forged.status).to.equal(404);
    expect(forged.headers.get('location')).to.equal(null);
  });

  it('hands a forwarded sign-in link nothing: the bot names the asking browser, and Cancel ends the request', async () => {
    const attacker = new Browser(system);
    const firefox = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0';
    const login = await attacker.call<{ requestId: string; code: string }>('POST', '/api/auth/login', {}, { 'user-agent': firefox });
    expect(login.status, login.text).to.equal(201);
    // The administrator, sent the link, presses Start: the bot asks instead of signing anyone in.
    const question = await botUpdate(system, startUpdate(login.body.code, ADMIN_ID));
    expect(question.body.text).to.contain('Firefox 121 on Windows').and.to.contain('127.0.0.1');
    expect((await attacker.get(`/api/auth/login/${login.body.requestId}`)).body).to.deep.equal({ status: 'pending' });
    await botUpdate(system, buttonUpdate(questionButton(question.body, 1)!, ADMIN_ID));
    const polled = await attacker.get(`/api/auth/login/${login.body.requestId}`);
    expect(polled.body).to.deep.equal({ status: 'cancelled' });
    expect(attacker.cookieHeader()).to.not.match(/pilot_session=/);
    expect((await attacker.get('/api/auth/session')).status).to.equal(401);
  });

  it('does not let a session be fixed by a cookie the browser already carried', async () => {
    const chosen = 'attackerChosenSessionValue0123456789';
    const browser = new Browser(system);
    const login = await browser.call<{ requestId: string; code: string }>('POST', '/api/auth/login', {}, { cookie: `pilot_session=${chosen}` });
    expect(login.status).to.equal(201);
    await botConfirms(system, login.body.code, '7004');
    const confirmed = await browser.get(`/api/auth/login/${login.body.requestId}`);
    expect(confirmed.status).to.equal(200);
    expect(browser.cookieHeader()).to.not.contain(chosen);
    const withChosen = await fetch(`${system.baseUrl}/api/auth/session`, { headers: { cookie: `pilot_session=${chosen}` } });
    expect(withChosen.status).to.equal(401);
  });

  it('sets the session cookie HttpOnly and SameSite=Lax, and the binding cookie HttpOnly', async () => {
    const login = await fetch(`${system.baseUrl}/api/auth/login`, { method: 'POST', headers: { origin: system.origin } });
    const binding = login.headers.getSetCookie();
    expect(binding).to.have.length.greaterThan(0);
    for (const cookie of binding) expect(cookie).to.match(/HttpOnly/i);
    const { requestId, code } = (await login.json()) as { requestId: string; code: string };
    await botConfirms(system, code, '7005');
    const confirmed = await fetch(`${system.baseUrl}/api/auth/login/${requestId}`, {
      headers: { cookie: binding.map((line) => line.split(';')[0]).join('; ') },
    });
    const session = confirmed.headers.getSetCookie().find((line) => line.startsWith('pilot_session='));
    expect(session).to.match(/HttpOnly/i);
    expect(session).to.match(/SameSite=Lax/i);
    expect(session).to.match(/Path=\//i);
  });

  it('origin-checks every write family of the workspace and of sign-in', async () => {
    const writes: [string, string][] = [
      ['POST', '/api/auth/login'],
      ['POST', '/api/auth/logout'],
      ['POST', '/api/workspace/campaigns'],
      ['POST', '/api/workspace/campaigns/1/submit'],
      ['POST', '/api/workspace/publishers'],
      ['POST', '/api/workspace/publishers/1/keys'],
      ['PUT', '/api/workspace/placements/home-feature'],
      ['DELETE', '/api/workspace/campaigns/1'],
      ['PATCH', '/api/workspace/publishers/1'],
    ];
    for (const [method, path] of writes) {
      for (const origin of ['https://evil.example', 'null', undefined]) {
        const headers: Record<string, string> = { 'content-type': 'application/json', cookie: admin.cookieHeader() };
        if (origin) headers.origin = origin;
        const answer = await fetch(`${system.baseUrl}${path}`, { method, headers, body: '{}' });
        expect(answer.status, `${method} ${path} from ${origin}`).to.equal(403);
      }
    }
  });

  it('limits how many login requests one client may start', async () => {
    // Uses its own system: the limit of this suite's system is raised so the other tests can sign in.
    const limited = await startSystem();
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 15; i += 1) {
        const answer = await fetch(`${limited.baseUrl}/api/auth/login`, { method: 'POST', headers: { origin: limited.origin } });
        statuses.push(answer.status);
        if (answer.status === 429) expect(Number(answer.headers.get('retry-after'))).to.be.greaterThan(0);
      }
      expect(statuses.filter((status) => status === 201).length).to.be.at.least(1);
      expect(statuses.at(-1)).to.equal(429);
    } finally {
      await limited.stop();
    }
  });

  it('serves pages with a Content-Security-Policy without inline script, nosniff and frame-ancestors', async () => {
    const page = await fetch(`${system.baseUrl}/api/site/placements/home-feature`);
    for (const response of [page, await fetch(`${system.baseUrl}/`)]) {
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp).to.contain("frame-ancestors 'none'");
      expect(csp).to.match(/script-src 'self'/);
      expect(csp).to.not.contain("'unsafe-inline'");
      expect(response.headers.get('x-content-type-options')).to.equal('nosniff');
    }
  });

  it('answers errors as problem+json that leak no stack, driver message or internal address', async () => {
    const answers: [string, Answer][] = [
      ['unknown api path', await advertiser.get('/api/nothing-here')],
      ['malformed json', await rawPost(system, advertiser, '/api/workspace/campaigns', '{"name": ')],
      ['internal path', await advertiser.get('/internal/audit')],
      ['bad id', await advertiser.get('/api/workspace/campaigns/not-a-number')],
      ['bad stats query', await advertiser.get('/api/workspace/stats?from=yesterday')],
      ['no key', await openLink(`${system.baseUrl}/api/network/ad`)],
    ];
    for (const [context, answer] of answers) {
      expect(answer.status, context).to.be.within(400, 499);
      expect(answer.headers.get('content-type'), context).to.contain('application/problem+json');
      expect(answer.body, context).to.include.keys('type', 'title', 'status', 'detail', 'code');
      expectNoLeak(answer, context);
    }
  });
});
