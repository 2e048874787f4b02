/**
 * The whole sign-in and a workspace call through the real gateway (its entry point run as a child process
 * with tsx: services never import each other's code), which resolves the session cookie with this service
 * and keeps it (SESSION_CACHE_MS); two gateways on one Redis show a logout reaching both.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { confirmInBot, reservedPort, scrapeMetrics, startUpdate, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import request from 'supertest';
import { cookieFrom, OWNER, signedInSession, startHarness, STRANGER, WEBHOOK_SECRET, type Harness } from './support';

const SITE = 'http://127.0.0.1:8080';

describe('publisher-identity through the gateway', () => {
  let h: Harness;
  const gateways: ChildProcess[] = [];
  let url: string;
  let otherUrl: string;

  /** A gateway process in front of this service, on the same Redis and key prefix: its base URL. */
  async function startGateway(): Promise<string> {
    const port = await reservedPort();
    const base = `http://127.0.0.1:${port}`;
    const gateway = spawn(process.execPath, ['-r', 'tsx/cjs', join(__dirname, '..', '..', 'gateway', 'src', 'main.ts')], {
      cwd: join(__dirname, '..', '..', 'gateway'),
      env: {
        PATH: process.env.PATH,
        NODE_ENV: 'test',
        GATEWAY_PORT: String(port),
        INTERNAL_SECRET: h.infra.internalSecret,
        PUBLIC_BASE_URL: SITE,
        IDENTITY_URLS: h.service.url,
        REDIS_URL: h.infra.redisUrl,
        REDIS_KEY_PREFIX: h.infra.redisPrefix,
        LOG_LEVEL: 'silent',
      },
      stdio: 'ignore',
    });
    gateways.push(gateway);
    await waitFor(async () => (await fetch(`${base}/livez`).catch(() => null))?.ok, { timeoutMs: 20_000, message: 'gateway up' });
    return base;
  }

  before(async function () {
    this.timeout(40_000);
    h = await startHarness();
    // The gateways read the system clock: sessions are issued at the present, so they live for them too.
    h.clock.set(new Date());
    [url, otherUrl] = await Promise.all([startGateway(), startGateway()]);
  });

  after(async () => {
    for (const gateway of gateways) gateway.kill('SIGTERM');
    await h?.stop();
  });

  /** How many times publisher-identity was asked to resolve a session, by its own metrics. */
  const resolves = async () => (await scrapeMetrics(h.service.url)).value('http_request_duration_seconds_count', { route: '/internal/sessions/resolve' });

  it('signs in through the bot, resolves the session on workspace calls, and ends it at logout', async () => {
    await request(url).post('/api/auth/login').expect(403);
    const created = await request(url).post('/api/auth/login').set('Origin', SITE).expect(201);
    const binding = cookieFrom(created, 'pilot_login')!;
    await request(url)
      .post('/api/auth/telegram-webhook')
      .set('X-Telegram-Bot-Api-Secret-Token', 'wrong-secret-0123456789')
      .send(startUpdate(created.body.code, OWNER.accountId))
      .expect(401);
    await confirmInBot(
      async (update) => (await request(url).post('/api/auth/telegram-webhook').set('X-Telegram-Bot-Api-Secret-Token', WEBHOOK_SECRET).send(update).expect(200)).body as unknown,
      created.body.code,
      OWNER.accountId,
      'gateway_user',
    );
    await request(url).get(`/api/auth/login/${created.body.requestId}`).expect(404);
    const confirmed = await request(url).get(`/api/auth/login/${created.body.requestId}`).set('Cookie', binding.pair).expect(200);
    expect(confirmed.body.account).to.deep.equal({ accountId: OWNER.accountId, displayName: 'gateway_user', admin: false });
    const session = cookieFrom(confirmed, 'pilot_session')!;

    expect((await request(url).get('/api/auth/session').set('Cookie', session.pair).expect(200)).body.accountId).to.equal(OWNER.accountId);
    await request(url).get('/api/workspace/publishers').expect(401);
    await request(url).post('/api/workspace/publishers').set('Cookie', session.pair).send({ type: 'bot', link: '@gw_test_bot' }).expect(403);
    const registered = await request(url)
      .post('/api/workspace/publishers')
      .set('Cookie', session.pair)
      .set('Origin', SITE)
      .send({ type: 'bot', link: '@gw_test_bot' })
      .expect(201);
    expect(registered.body).to.include({ ownerAccountId: OWNER.accountId, link: 'https://t.me/gw_test_bot' });
    const list = await request(url).get('/api/workspace/publishers').set('Cookie', session.pair).expect(200);
    expect(list.body.items.map((item: { id: number }) => item.id)).to.deep.equal([registered.body.id]);
    await request(url).post(`/api/workspace/publishers/${registered.body.id}/approve`).set('Cookie', session.pair).set('Origin', SITE).expect(403);
    const audit = await request(url).get(`/api/workspace/audit?entity=publisher&entityId=${registered.body.id}`).set('Cookie', session.pair).expect(200);
    expect(audit.body.items).to.have.length(1);
    expect(audit.body.items[0]).to.include({ entity: 'publisher', entityId: String(registered.body.id), action: 'created', to: 'draft', actorAccountId: OWNER.accountId });
    const signIns = await request(url).get('/api/workspace/audit?entity=account').set('Cookie', session.pair).expect(200);
    expect(signIns.body.items.map((item: { action: string }) => item.action)).to.include('signed_in');

    await request(url).post('/api/auth/logout').set('Cookie', session.pair).set('Origin', SITE).expect(204);
    await request(url).get('/api/workspace/publishers').set('Cookie', session.pair).expect(401);
    await request(url).get('/api/auth/session').set('Cookie', session.pair).expect(401);
  });

  it('asks publisher-identity once per gateway for a session, and a logout through one gateway refuses it at once on the other that kept it', async () => {
    const session = await signedInSession(h, STRANGER.accountId);
    const asked = await resolves();
    const registered = await request(url).post('/api/workspace/publishers').set('Cookie', session.pair).set('Origin', SITE).send({ type: 'bot', link: '@cached_session_bot' }).expect(201);
    expect(registered.body.ownerAccountId).to.equal(STRANGER.accountId);
    await request(otherUrl).get('/api/workspace/publishers').set('Cookie', session.pair).expect(200);
    await waitFor(async () => (await resolves()) === asked + 2, { message: 'each gateway asked once' });
    for (const base of [url, otherUrl, url, otherUrl]) {
      const list = await request(base).get('/api/workspace/publishers').set('Cookie', session.pair).expect(200);
      expect(list.body.items.map((item: { id: number; ownerAccountId: string }) => [item.id, item.ownerAccountId])).to.deep.equal([[registered.body.id, STRANGER.accountId]]);
    }
    expect(await resolves(), 'the next calls answered from what each gateway keeps').to.equal(asked + 2);

    await request(url).post('/api/auth/logout').set('Cookie', session.pair).set('Origin', SITE).expect(204);
    for (const base of [url, otherUrl]) {
      const refused = await request(base).get('/api/workspace/publishers').set('Cookie', session.pair).expect(401);
      expect(refused.body.code).to.equal('not_signed_in');
    }
    expect(await resolves(), 'refused by the ended-session marker, publisher-identity not asked').to.equal(asked + 2);
  });
});
