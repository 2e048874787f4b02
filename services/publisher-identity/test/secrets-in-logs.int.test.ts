import { expect } from 'chai';
import { confirmInBot } from '@pilot/testkit';
import { ADMIN, cookieFrom, OWNER, startHarness, WEBHOOK_SECRET, type Harness } from './support';

describe('publisher-identity: secrets never reach the logs', () => {
  const lines: string[] = [];
  let h: Harness;
  before(async () => {
    h = await startHarness({}, lines);
  });
  after(async () => {
    await h.stop();
  });

  it('logs no login code, binding value, session id, webhook secret or API key, even at trace level', async () => {
    const created = await h.call('post', '/api/auth/login', null).expect(201);
    const binding = cookieFrom(created, 'pilot_login')!;
    await confirmInBot(
      async (update) => (await h.call('post', '/api/auth/telegram-webhook', null).set('X-Telegram-Bot-Api-Secret-Token', WEBHOOK_SECRET).send(update).expect(200)).body as unknown,
      created.body.code,
      OWNER.accountId,
    );
    const confirmed = await h.call('get', `/api/auth/login/${created.body.requestId}`, null, { cookie: binding.pair }).expect(200);
    const session = cookieFrom(confirmed, 'pilot_session')!;
    await h.call('get', '/internal/sessions/resolve', null).set('x-pilot-session', session.value).expect(200);
    await h.call('get', '/api/auth/session', null, { cookie: session.pair }).expect(200);

    const registered = await h.call('post', '/api/workspace/publishers', OWNER).send({ type: 'bot', link: '@secret_test_bot' }).expect(201);
    const id = registered.body.id as number;
    await h.call('post', `/api/workspace/publishers/${id}/submit`, OWNER).expect(200);
    await h.call('post', `/api/workspace/publishers/${id}/approve`, ADMIN).expect(200);
    const first = await h.call('post', `/api/workspace/publishers/${id}/keys`, OWNER).expect(201);
    const second = await h.call('post', `/api/workspace/publishers/${id}/keys`, OWNER).expect(201);
    await h.call('post', '/api/auth/logout', null, { cookie: session.pair }).expect(204);

    const log = lines.join('');
    expect(log).to.contain('request completed');
    for (const secret of [created.body.code, binding.value, session.value, WEBHOOK_SECRET, first.body.key, second.body.key]) {
      expect(log).to.not.contain(secret);
    }
  });
});
