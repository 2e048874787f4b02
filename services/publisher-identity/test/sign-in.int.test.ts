import { buttonUpdate, confirmInBot, questionButton, startUpdate } from '@pilot/testkit';
import { expect } from 'chai';
import { ADMIN, cookieFrom, OWNER, startHarness, STRANGER, WEBHOOK_SECRET, type Harness } from './support';

const CHROME = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

const COOKIE_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;

describe('publisher-identity: workspace sign-in', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ LOGIN_LIMIT_POINTS: '1000' });
  });
  after(async () => {
    await h.stop();
  });

  async function createLogin(clientIp?: string) {
    const response = await h.call('post', '/api/auth/login', null, { clientIp }).set('User-Agent', CHROME).expect(201);
    const binding = cookieFrom(response, 'pilot_login');
    expect(binding, 'binding cookie').to.not.equal(null);
    return { body: response.body as { requestId: string; code: string; botUrl: string; expiresAt: string }, binding: binding!, response };
  }

  function webhook(update: unknown, secret: string | null = WEBHOOK_SECRET) {
    const test = h.call('post', '/api/auth/telegram-webhook', null);
    if (secret !== null) test.set('X-Telegram-Bot-Api-Secret-Token', secret);
    return test.send(update as object);
  }

  function poll(requestId: string, cookie?: string) {
    return h.call('get', `/api/auth/login/${requestId}`, null, { cookie });
  }

  const post = async (update: Record<string, unknown>) => (await webhook(update).expect(200)).body as unknown;

  async function signIn(accountId: string, username?: string) {
    const login = await createLogin();
    await confirmInBot(post, login.body.code, accountId, username);
    const response = await poll(login.body.requestId, login.binding.pair).expect(200);
    const session = cookieFrom(response, 'pilot_session');
    expect(session, 'session cookie').to.not.equal(null);
    return { login, response, session: session! };
  }

  it('creates a login request bound to this browser by an HttpOnly cookie, with a single deep-link code', async () => {
    const { body, binding, response } = await createLogin();
    expect(response.headers['cache-control']).to.equal('no-store');
    expect(body.code).to.match(/^[A-Za-z0-9_-]{1,64}$/);
    expect(body.code.length).to.be.at.least(32);
    expect(body.botUrl).to.equal(`https://t.me/pilot_signin_bot?start=${body.code}`);
    expect(new Date(body.expiresAt).getTime() - h.clock.now().getTime()).to.equal(5 * 60 * 1000);
    expect(binding.line).to.match(/HttpOnly/).and.to.match(/SameSite=Lax/).and.not.to.match(/Secure/);
    expect(binding.value).to.not.contain(body.code);
    const other = await createLogin();
    expect(other.body.code).to.not.equal(body.code);
    expect(other.body.requestId).to.not.equal(body.requestId);
  });

  it('refuses the webhook with 401 when the secret token is wrong or missing, and confirms nothing', async () => {
    const { body, binding } = await createLogin();
    const wrong = await webhook(startUpdate(body.code, OWNER.accountId), 'wrong-secret-0123456789').expect(401);
    expect(wrong.body.code).to.equal('webhook_secret_invalid');
    await webhook(startUpdate(body.code, OWNER.accountId), null).expect(401);
    await webhook(startUpdate(body.code, OWNER.accountId), `${WEBHOOK_SECRET}x`).expect(401);
    const status = await poll(body.requestId, binding.pair).expect(200);
    expect(status.body).to.deep.equal({ status: 'pending' });
  });

  it('answers /start <code> with a question naming the browser, address and time, and confirms nothing yet', async () => {
    const login = await createLogin('203.0.113.77');
    const question = await webhook(startUpdate(login.body.code, OWNER.accountId)).expect(200);
    expect(question.body).to.include({ method: 'sendMessage', chat_id: Number(OWNER.accountId) });
    expect(question.body.text).to.contain('Chrome 120 on Linux').and.to.contain('203.0.113.77').and.to.contain('2026-06-01 12:00 UTC');
    const buttons = question.body.reply_markup.inline_keyboard[0] as Array<{ text: string; callback_data: string }>;
    expect(buttons.map((button) => button.text)).to.deep.equal(['Confirm sign-in', 'Cancel']);
    for (const button of buttons) expect(Buffer.byteLength(button.callback_data)).to.be.at.most(64);
    expect((await poll(login.body.requestId, login.binding.pair).expect(200)).body).to.deep.equal({ status: 'pending' });
  });

  it('signs in the account that pressed Confirm: the binding browser gets a new session cookie and the account', async () => {
    const login = await createLogin();
    expect((await poll(login.body.requestId, login.binding.pair).expect(200)).body).to.deep.equal({ status: 'pending' });
    const question = await webhook(startUpdate(login.body.code, OWNER.accountId, { username: 'owner_name' })).expect(200);
    const answer = await webhook(buttonUpdate(questionButton(question.body, 0)!, OWNER.accountId, { username: 'owner_name', messageId: 55 })).expect(200);
    expect(answer.body).to.include({ method: 'editMessageText', chat_id: Number(OWNER.accountId), message_id: 55 });
    expect(answer.body.text).to.match(/signed in/i);

    const confirmed = await poll(login.body.requestId, login.binding.pair).expect(200);
    expect(confirmed.body).to.deep.equal({ status: 'confirmed', account: { accountId: OWNER.accountId, displayName: 'owner_name', admin: false } });
    const session = cookieFrom(confirmed, 'pilot_session')!;
    expect(session.value).to.match(COOKIE_PATTERN);
    expect(session.value).to.not.equal(login.binding.value);
    expect(session.line).to.match(/HttpOnly/).and.to.match(/SameSite=Lax/).and.to.match(/Path=\//).and.not.to.match(/Secure/);

    const current = await h.call('get', '/api/auth/session', null, { cookie: session.pair }).expect(200);
    expect(current.body).to.deep.equal({ accountId: OWNER.accountId, displayName: 'owner_name', admin: false });
    // The gateway keeps a resolved session no longer than it lives.
    const resolved = await h.call('get', '/internal/sessions/resolve', null).set('x-pilot-session', session.value).expect(200);
    const expiresAt = new Date(h.clock.now().getTime() + 168 * 3600 * 1000).toISOString();
    expect(resolved.body).to.deep.equal({ accountId: OWNER.accountId, displayName: 'owner_name', admin: false, expiresAt });
  });

  it('tells a signed call when an account last signed in (null for one never seen, 404 for a malformed id)', async () => {
    const never = await h.call('get', '/internal/accounts/777000111/sign-in', null).expect(200);
    expect(never.body).to.deep.equal({ lastSignInAt: null });
    const before = h.clock.now().getTime();
    await signIn(STRANGER.accountId);
    const seen = await h.call('get', `/internal/accounts/${STRANGER.accountId}/sign-in`, null).expect(200);
    expect(Date.parse(seen.body.lastSignInAt)).to.be.at.least(before);
    expect((await h.call('get', '/internal/accounts/abc/sign-in', null).expect(404)).body.code).to.equal('account_not_found');
    const unsigned = await fetch(`${h.service.url}/internal/accounts/${STRANGER.accountId}/sign-in`);
    expect(unsigned.status).to.equal(401);
  });

  it('gives a forwarded link nothing: the person who pressed Start cancels, and the browser that asked hears cancelled', async () => {
    const attacker = await createLogin('198.51.100.66');
    const question = await webhook(startUpdate(attacker.body.code, ADMIN.accountId)).expect(200);
    expect(question.body.text).to.contain('198.51.100.66');
    const cancelled = await webhook(buttonUpdate(questionButton(question.body, 1)!, ADMIN.accountId)).expect(200);
    expect(cancelled.body.method).to.equal('editMessageText');
    expect(cancelled.body.text).to.match(/cancelled/i);
    const polled = await poll(attacker.body.requestId, attacker.binding.pair).expect(200);
    expect(polled.body).to.deep.equal({ status: 'cancelled' });
    expect(cookieFrom(polled, 'pilot_session')).to.equal(null);
    // A late Confirm, or the code sent again, changes nothing.
    const late = await webhook(buttonUpdate(questionButton(question.body, 0)!, ADMIN.accountId)).expect(200);
    expect(late.body.text).to.match(/already answered/i);
    expect((await webhook(startUpdate(attacker.body.code, ADMIN.accountId)).expect(200)).body.text).to.match(/already used/i);
    expect((await poll(attacker.body.requestId, attacker.binding.pair).expect(200)).body).to.deep.equal({ status: 'cancelled' });
  });

  it('confirms nothing from a group, supergroup or channel, nor a button pressed by an account that was not asked', async () => {
    const login = await createLogin();
    for (const type of ['group', 'supergroup', 'channel'] as const) {
      const fromGroup = await webhook(startUpdate(login.body.code, OWNER.accountId, { chat: { id: -100123, type } })).expect(200);
      expect(fromGroup.text, type).to.equal('');
    }
    const question = await webhook(startUpdate(login.body.code, OWNER.accountId)).expect(200);
    const confirm = questionButton(question.body, 0)!;
    const stranger = await webhook(buttonUpdate(confirm, STRANGER.accountId)).expect(200);
    expect(stranger.body).to.include({ method: 'answerCallbackQuery' });
    const inGroup = await webhook(buttonUpdate(confirm, OWNER.accountId, { chat: { id: -100123, type: 'group' } })).expect(200);
    expect(inGroup.text).to.equal('');
    expect((await poll(login.body.requestId, login.binding.pair).expect(200)).body).to.deep.equal({ status: 'pending' });
    // The account asked still confirms.
    await webhook(buttonUpdate(confirm, OWNER.accountId)).expect(200);
    expect((await poll(login.body.requestId, login.binding.pair).expect(200)).body.account.accountId).to.equal(OWNER.accountId);
  });

  it('issues the session only on the first read after confirmation', async () => {
    const { login } = await signIn(STRANGER.accountId);
    const again = await poll(login.body.requestId, login.binding.pair).expect(200);
    expect(again.body).to.deep.equal({ status: 'confirmed' });
    expect(cookieFrom(again, 'pilot_session')).to.equal(null);
  });

  it('grants administrator rights to the accounts of ADMIN_ACCOUNT_IDS', async () => {
    const { response, session } = await signIn(ADMIN.accountId);
    expect(response.body.account).to.include({ accountId: ADMIN.accountId, admin: true });
    const resolved = await h.call('get', '/internal/sessions/resolve', null).set('x-pilot-session', session.value).expect(200);
    expect(resolved.body.admin).to.equal(true);
  });

  it('answers 404 to another browser polling the request, before and after confirmation', async () => {
    const login = await createLogin();
    const stranger = await createLogin();
    await poll(login.body.requestId).expect(404);
    await poll(login.body.requestId, stranger.binding.pair).expect(404);
    await confirmInBot(post, login.body.code, OWNER.accountId);
    const response = await poll(login.body.requestId, stranger.binding.pair).expect(404);
    expect(response.body.code).to.equal('login_request_not_found');
    expect(cookieFrom(response, 'pilot_session')).to.equal(null);
    await poll('not-a-request-id', login.binding.pair).expect(404);
    // The binding browser still gets its session afterwards.
    const mine = await poll(login.body.requestId, login.binding.pair).expect(200);
    expect(mine.body.status).to.equal('confirmed');
  });

  it('asks only the first account that sends a code: another hears it was used, the same one is asked again', async () => {
    const login = await createLogin();
    await webhook(startUpdate(login.body.code, OWNER.accountId)).expect(200);
    const reuse = await webhook(startUpdate(login.body.code, STRANGER.accountId)).expect(200);
    expect(reuse.body.text).to.match(/already used/i);
    expect(questionButton(reuse.body, 0)).to.equal(null);
    const again = await webhook(startUpdate(login.body.code, OWNER.accountId)).expect(200);
    await webhook(buttonUpdate(questionButton(again.body, 0)!, OWNER.accountId)).expect(200);
    const confirmed = await poll(login.body.requestId, login.binding.pair).expect(200);
    expect(confirmed.body.account.accountId).to.equal(OWNER.accountId);
  });

  it('processes a replayed update once', async () => {
    const login = await createLogin();
    const update = startUpdate(login.body.code, OWNER.accountId);
    const first = await webhook(update).expect(200);
    expect(questionButton(first.body, 0)).to.be.a('string');
    const replay = await webhook(update).expect(200);
    expect(replay.text).to.equal('');
  });

  it('answers 413 to an update over 64 KiB, however its body is sent', async () => {
    const big = JSON.stringify({ update_id: 77, message: { text: 'x'.repeat(70 * 1024) } });
    const declared = await h.call('post', '/api/auth/telegram-webhook', null).set('X-Telegram-Bot-Api-Secret-Token', WEBHOOK_SECRET).set('content-type', 'application/json').send(big);
    expect(declared.status).to.equal(413);
    expect(declared.body.code).to.equal('payload_too_large');
  });

  it('confirms nothing with an unknown code, or with a message that is not /start <code>, and still answers 200', async () => {
    const unknown = await webhook(startUpdate('NoSuchCode_0123456789abcdef', OWNER.accountId)).expect(200);
    expect(unknown.body.text).to.match(/not valid/i);
    const chat = startUpdate('x', OWNER.accountId);
    (chat.message as Record<string, unknown>).text = 'hello';
    const hello = await webhook(chat).expect(200);
    expect(hello.body.method).to.equal('sendMessage');
    await webhook({ update_id: 5, edited_message: {} }).expect(200);
    await h.call('post', '/api/auth/telegram-webhook', null).set('X-Telegram-Bot-Api-Secret-Token', WEBHOOK_SECRET).set('content-type', 'application/json').send('{not json').expect(200);
  });

  it('expires a request after 5 minutes: the poll says expired and the code confirms nothing', async () => {
    const login = await createLogin();
    // The browser keeps the binding cookie past the request's 5 minutes, so its next poll reaches "expired".
    const maxAge = Number(/Max-Age=(\d+)/.exec(login.binding.line)?.[1]);
    expect(maxAge, login.binding.line).to.be.greaterThan(5 * 60);
    h.clock.advance(5 * 60 * 1000);
    expect((await poll(login.body.requestId, login.binding.pair).expect(200)).body).to.deep.equal({ status: 'expired' });
    const late = await webhook(startUpdate(login.body.code, OWNER.accountId)).expect(200);
    expect(late.body.text).to.match(/expired/i);
    expect((await poll(login.body.requestId, login.binding.pair).expect(200)).body).to.deep.equal({ status: 'expired' });
  });

  it('confirms nothing when Confirm is pressed after the request expired', async () => {
    const login = await createLogin();
    const question = await webhook(startUpdate(login.body.code, OWNER.accountId)).expect(200);
    h.clock.advance(5 * 60 * 1000);
    const late = await webhook(buttonUpdate(questionButton(question.body, 0)!, OWNER.accountId)).expect(200);
    expect(late.body.text).to.match(/expired/i);
    expect((await poll(login.body.requestId, login.binding.pair).expect(200)).body).to.deep.equal({ status: 'expired' });
  });

  it('does not start a session for a request confirmed but read only after it expired', async () => {
    const login = await createLogin();
    await confirmInBot(post, login.body.code, OWNER.accountId);
    h.clock.advance(5 * 60 * 1000 + 1);
    const response = await poll(login.body.requestId, login.binding.pair).expect(200);
    expect(response.body).to.deep.equal({ status: 'expired' });
    expect(cookieFrom(response, 'pilot_session')).to.equal(null);
  });

  it('ends the session on the server at logout', async () => {
    const { session } = await signIn(OWNER.accountId);
    const out = await h.call('post', '/api/auth/logout', null, { cookie: session.pair }).expect(204);
    expect(out.text).to.equal('');
    expect(cookieFrom(out, 'pilot_session')?.line).to.match(/Max-Age=0/);
    await h.call('get', '/api/auth/session', null, { cookie: session.pair }).expect(401);
    await h.call('get', '/internal/sessions/resolve', null).set('x-pilot-session', session.value).expect(401);
    await h.call('post', '/api/auth/logout', null, { cookie: session.pair }).expect(204);
  });

  it('answers 401 for the session without a cookie, with an unknown one or a malformed one', async () => {
    const none = await h.call('get', '/api/auth/session', null).expect(401);
    expect(none.headers['content-type']).to.match(/^application\/problem\+json/);
    await h.call('get', '/api/auth/session', null, { cookie: 'pilot_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' }).expect(401);
    await h.call('get', '/internal/sessions/resolve', null).set('x-pilot-session', 'bad value!').expect(401);
    await h.call('get', '/internal/sessions/resolve', null).expect(401);
  });

  it('ends a session after its lifetime', async () => {
    const { session } = await signIn(OWNER.accountId);
    h.clock.advance(168 * 3600 * 1000);
    await h.call('get', '/api/auth/session', null, { cookie: session.pair }).expect(401);
  });

  it('writes every sign-in and sign-out to the audit of the account', async () => {
    const name = 'audited';
    const accountId = '4004';
    const { session } = await signIn(accountId, name);
    h.clock.advance(1000);
    await h.call('post', '/api/auth/logout', null, { cookie: session.pair }).expect(204);
    const mine = await h.call('get', '/internal/audit?entity=account', { accountId, admin: false }).expect(200);
    expect(mine.body.items.map((item: { action: string }) => item.action)).to.deep.equal(['signed_out', 'signed_in']);
    expect(mine.body.items[0]).to.include({ entity: 'account', entityId: accountId, actorAccountId: accountId });
    const others = await h.call('get', `/internal/audit?entity=account&entityId=${accountId}`, STRANGER).expect(200);
    expect(others.body.items).to.deep.equal([]);
    const admin = await h.call('get', `/internal/audit?entity=account&entityId=${accountId}`, ADMIN).expect(200);
    expect(admin.body.items).to.have.length(2);
  });

  it('reports ready when MongoDB, RabbitMQ and Redis answer', async () => {
    const request = (await import('supertest')).default;
    const response = await request(h.service.url).get('/readyz').expect(200);
    expect(response.body.checks).to.deep.equal({ mongodb: 'ok', rabbitmq: 'ok', redis: 'ok' });
  });

  it('refuses calls that do not carry the gateway signature', async () => {
    const request = (await import('supertest')).default;
    const response = await request(h.service.url).get('/internal/sessions/resolve').set('x-pilot-session', 'A'.repeat(43)).expect(401);
    expect(response.body.code).to.equal('internal_signature_invalid');
    await request(h.service.url).post('/api/auth/login').set('x-pilot-internal', 'v1.1.forged').expect(401);
  });
});

describe('publisher-identity: login limits and HTTPS cookies', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({ LOGIN_LIMIT_POINTS: '3', PUBLIC_BASE_URL: 'https://pilot.example' });
  });
  after(async () => {
    await h.stop();
  });

  it('limits login requests per client address with 429 and Retry-After', async () => {
    for (let i = 0; i < 3; i += 1) await h.call('post', '/api/auth/login', null, { clientIp: '203.0.113.9' }).expect(201);
    const refused = await h.call('post', '/api/auth/login', null, { clientIp: '203.0.113.9' }).expect(429);
    expect(refused.body.code).to.equal('rate_limited');
    expect(Number(refused.headers['retry-after'])).to.be.at.least(1);
    await h.call('post', '/api/auth/login', null, { clientIp: '203.0.113.10' }).expect(201);
  });

  it('limits an IPv6 client by its /64, whichever of its addresses it uses', async () => {
    for (let i = 1; i <= 3; i += 1) await h.call('post', '/api/auth/login', null, { clientIp: `2001:db8:5:6::${i}` }).expect(201);
    const refused = await h.call('post', '/api/auth/login', null, { clientIp: '2001:db8:5:6:abcd::99' }).expect(429);
    expect(refused.body.code).to.equal('rate_limited');
    await h.call('post', '/api/auth/login', null, { clientIp: '2001:db8:5:7::1' }).expect(201);
  });

  it('marks the binding and session cookies Secure when the site is HTTPS, the session cookie with the __Host- prefix', async () => {
    const created = await h.call('post', '/api/auth/login', null, { clientIp: '203.0.113.20' }).expect(201);
    const binding = cookieFrom(created, 'pilot_login')!;
    expect(binding.line).to.match(/Secure/);
    await confirmInBot(
      async (update) => (await h.call('post', '/api/auth/telegram-webhook', null).set('X-Telegram-Bot-Api-Secret-Token', WEBHOOK_SECRET).send(update).expect(200)).body as unknown,
      created.body.code,
      OWNER.accountId,
    );
    const confirmed = await h.call('get', `/api/auth/login/${created.body.requestId}`, null, { cookie: binding.pair }).expect(200);
    expect(cookieFrom(confirmed, 'pilot_session')).to.equal(null);
    const session = cookieFrom(confirmed, '__Host-pilot_session')!;
    expect(session.line).to.match(/Secure/).and.to.match(/HttpOnly/).and.to.match(/SameSite=Lax/).and.to.match(/Path=\/;/);
    expect(session.line).not.to.match(/Domain=/i);
    await h.call('get', '/api/auth/session', null, { cookie: session.pair }).expect(200);
  });
});
