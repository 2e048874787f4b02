/**
 * The whole sign-in and a workspace call through the real gateway (its entry point run as a child process
 * with tsx: services never import each other's code), which resolves the session cookie with this service.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { confirmInBot, reservedPort, startUpdate, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import request from 'supertest';
import { cookieFrom, OWNER, startHarness, WEBHOOK_SECRET, type Harness } from './support';

const SITE = 'http://127.0.0.1:8080';

describe('publisher-identity through the gateway', () => {
  let h: Harness;
  let gateway: ChildProcess;
  let url: string;

  before(async function () {
    this.timeout(30_000);
    h = await startHarness();
    const port = await reservedPort();
    url = `http://127.0.0.1:${port}`;
    gateway = spawn(process.execPath, ['-r', 'tsx/cjs', join(__dirname, '..', '..', 'gateway', 'src', 'main.ts')], {
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
    await waitFor(async () => (await fetch(`${url}/livez`)).ok, { timeoutMs: 20_000, message: 'gateway up' });
  });

  after(async () => {
    gateway?.kill('SIGTERM');
    await h?.stop();
  });

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
});
