/**
 * Retention of publisher-identity's per-event documents, on real FerretDB with the
 * service's ManualClock: what is inside its window survives a sweep, what is past it is gone, and sign-in
 * behaves as before the sweep.
 */
import { buttonUpdate, confirmInBot, questionButton, startUpdate, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { MongoClient, type Db, type Document } from 'mongodb';
import { RETENTION } from '../src/domain/retention';
import { sha256Hex } from '../src/domain/secrets';
import { ADMIN, cookieFrom, OWNER, startHarness, STRANGER, WEBHOOK_SECRET, type Harness } from './support';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const LOGIN_LIFE = 5 * MINUTE;

describe('publisher-identity: retention of per-event data', () => {
  let h: Harness;
  let client: MongoClient;
  let db: Db;

  before(async () => {
    h = await startHarness({ LOGIN_LIMIT_POINTS: '1000' });
    client = await MongoClient.connect(h.infra.mongoUrl, { retryWrites: false });
    db = client.db(h.env.MONGO_DB);
  });
  after(async () => {
    await h.stop();
    await db.dropDatabase().catch(() => undefined);
    await client.close();
  });

  const count = (collection: string, filter: Document) => db.collection(collection).countDocuments(filter);
  const exists = async (collection: string, id: unknown) => (await count(collection, { _id: id })) === 1;
  /** Moves the service's clock to `ms` after `from`. */
  const at = (from: Date, ms: number) => h.clock.set(new Date(from.getTime() + ms));

  async function createLogin() {
    const response = await h.call('post', '/api/auth/login', null).expect(201);
    const body = response.body as { requestId: string; code: string; expiresAt: string };
    return { ...body, binding: cookieFrom(response, 'pilot_login')!.pair, expiresAt: new Date(body.expiresAt) };
  }
  function webhook(update: unknown) {
    return h.call('post', '/api/auth/telegram-webhook', null).set('X-Telegram-Bot-Api-Secret-Token', WEBHOOK_SECRET).send(update as object);
  }
  const poll = (login: { requestId: string; binding: string }) => h.call('get', `/api/auth/login/${login.requestId}`, null, { cookie: login.binding });
  const post = async (update: Record<string, unknown>) => (await webhook(update).expect(200)).body as unknown;
  async function signIn(accountId: string) {
    const login = await createLogin();
    await confirmInBot(post, login.code, accountId);
    const response = await poll(login).expect(200);
    return { login, session: cookieFrom(response, 'pilot_session')!, issuedAt: h.clock.now() };
  }

  it('keeps login requests and code uses a day past the request, answering as before; then the code is unknown, never usable again', async () => {
    const used = await createLogin();
    const pending = await createLogin();
    const confirmed = (await confirmInBot(post, used.code, OWNER.accountId)) as { text: string };
    expect(confirmed.text).to.match(/signed in/i);
    const useAt = h.clock.now();
    const codeHash = sha256Hex(used.code);

    // Within the request's life: a sweep changes nothing, and the used code is still refused.
    await h.service.sweepRetention();
    expect(await exists('login_code_uses', codeHash)).to.equal(true);
    expect((await webhook(startUpdate(used.code, STRANGER.accountId)).expect(200)).body.text).to.match(/already used/i);
    expect((await poll(pending).expect(200)).body).to.deep.equal({ status: 'pending' });

    // Expired: both requests still answer "expired" to the browser and to the bot, through a sweep.
    at(used.expiresAt, 1);
    await h.service.sweepRetention();
    expect((await poll(pending).expect(200)).body).to.deep.equal({ status: 'expired' });
    expect((await webhook(startUpdate(pending.code, STRANGER.accountId)).expect(200)).body.text).to.match(/expired/i);
    expect((await webhook(startUpdate(used.code, STRANGER.accountId)).expect(200)).body.text).to.match(/already used/i);

    // The last moment of the window: everything is still there.
    at(useAt, RETENTION.loginCodeUsesMs - 1);
    await h.service.sweepRetention();
    expect(await exists('login_code_uses', codeHash)).to.equal(true);
    expect(await exists('login_requests', used.requestId)).to.equal(true);
    expect((await poll(pending).expect(200)).body).to.deep.equal({ status: 'expired' });

    // Past the window of code uses but not yet of requests: the request still answers "already used".
    at(useAt, RETENTION.loginCodeUsesMs + 1);
    expect(used.expiresAt.getTime() + RETENTION.loginRequestsMs).to.be.above(h.clock.now().getTime());
    await h.service.sweepRetention();
    expect(await exists('login_code_uses', codeHash)).to.equal(false);
    expect(await exists('login_requests', used.requestId)).to.equal(true);
    expect((await webhook(startUpdate(used.code, STRANGER.accountId)).expect(200)).body.text).to.match(/already used/i);

    // Past the requests' window: both are gone; the browser hears 404 and the bot "not valid", never "signed in".
    at(pending.expiresAt, RETENTION.loginRequestsMs + 1);
    await h.service.sweepRetention();
    expect(await exists('login_requests', used.requestId)).to.equal(false);
    expect(await exists('login_requests', pending.requestId)).to.equal(false);
    expect((await poll(pending).expect(404)).body.code).to.equal('login_request_not_found');
    expect((await webhook(startUpdate(used.code, STRANGER.accountId)).expect(200)).body.text).to.match(/not valid/i);
    expect(await exists('login_code_uses', codeHash)).to.equal(false);
  });

  it('keeps a code use that outran its confirmation (the request still pending) while the request can be confirmed', async () => {
    const login = await createLogin();
    const codeHash = sha256Hex(login.code);
    // A process that died between claiming the code and marking the request confirmed.
    await db.collection('login_code_uses').insertOne({ _id: codeHash as never, at: h.clock.now(), accountId: OWNER.accountId });
    at(h.clock.now(), LOGIN_LIFE - 1);
    await h.service.sweepRetention();
    expect(await exists('login_code_uses', codeHash)).to.equal(true);
    expect((await webhook(startUpdate(login.code, STRANGER.accountId)).expect(200)).body.text).to.match(/already used/i);
    expect((await poll(login).expect(200)).body).to.deep.equal({ status: 'pending' });
  });

  it('finishes a request left pending under an answer already given (a process that died between the two writes) with that answer', async () => {
    const login = await createLogin();
    const question = (await webhook(startUpdate(login.code, '6006')).expect(200)).body as unknown;
    await db.collection('login_answers').insertOne({ _id: login.requestId as never, at: h.clock.now(), accountId: '6006', answer: 'confirmed' });
    expect((await poll(login).expect(200)).body).to.deep.equal({ status: 'pending' });
    const pressed = await webhook(buttonUpdate(questionButton(question, 1)!, '6006')).expect(200);
    expect(pressed.body.text).to.match(/signed in/i);
    expect((await poll(login).expect(200)).body.status).to.equal('confirmed');
  });

  it('keeps session issues as long as their request: a confirmed request issues one session, before and after sweeps', async () => {
    const { login, session, issuedAt } = await signIn(OWNER.accountId);
    expect(session.value).to.have.length.above(16);
    await h.service.sweepRetention();
    const again = await poll(login).expect(200);
    expect(again.body).to.deep.equal({ status: 'confirmed' });
    expect(cookieFrom(again, 'pilot_session')).to.equal(null);

    at(issuedAt, RETENTION.sessionIssuesMs - 1);
    await h.service.sweepRetention();
    expect(await exists('session_issues', login.requestId)).to.equal(true);

    // The issue goes a day after it was made; its request, expired, answers "expired" and issues nothing.
    at(issuedAt, RETENTION.sessionIssuesMs + 1);
    await h.service.sweepRetention();
    expect(await exists('session_issues', login.requestId)).to.equal(false);
    const late = await poll(login).expect(200);
    expect(late.body).to.deep.equal({ status: 'expired' });
    expect(cookieFrom(late, 'pilot_session')).to.equal(null);
    expect(await count('sessions', { accountId: OWNER.accountId, createdAt: { $gte: issuedAt } })).to.equal(1);
  });

  it('keeps webhook update ids for three days: a repeated update is processed once, within the window and through sweeps', async () => {
    const login = await createLogin();
    const update = startUpdate(login.code, OWNER.accountId);
    const receivedAt = h.clock.now();
    expect(questionButton((await webhook(update).expect(200)).body, 0)).to.be.a('string');
    await h.service.sweepRetention();
    expect((await webhook(update).expect(200)).text).to.equal('');

    // The platform retries for about a day; the id is still known on the last moment of its three days.
    at(receivedAt, RETENTION.webhookUpdatesMs - 1);
    await h.service.sweepRetention();
    expect(await exists('webhook_updates', update.update_id)).to.equal(true);
    expect((await webhook(update).expect(200)).text).to.equal('');

    at(receivedAt, RETENTION.webhookUpdatesMs + 1);
    await h.service.sweepRetention();
    expect(await exists('webhook_updates', update.update_id)).to.equal(false);
  });

  it('deletes a session a day after it ended or expired, and never resolves an ended or expired one', async () => {
    const kept = await signIn(OWNER.accountId);
    const ended = await signIn(STRANGER.accountId);
    const keptHash = sha256Hex(kept.session.value);
    const endedHash = sha256Hex(ended.session.value);
    await h.call('post', '/api/auth/logout', null, { cookie: ended.session.pair }).expect(204);
    const endedAt = h.clock.now();
    const expiresAt = (await db.collection('sessions').findOne({ _id: keptHash as never }))!.expiresAt as Date;

    at(endedAt, RETENTION.sessionsMs - 1);
    await h.service.sweepRetention();
    expect(await exists('sessions', endedHash)).to.equal(true);
    await h.call('get', '/api/auth/session', null, { cookie: ended.session.pair }).expect(401);
    await h.call('get', '/api/auth/session', null, { cookie: kept.session.pair }).expect(200);

    at(endedAt, RETENTION.sessionsMs + 1);
    await h.service.sweepRetention();
    expect(await exists('sessions', endedHash)).to.equal(false);
    expect(await exists('sessions', keptHash)).to.equal(true);
    await h.call('get', '/api/auth/session', null, { cookie: ended.session.pair }).expect(401);
    await h.call('post', '/api/auth/logout', null, { cookie: ended.session.pair }).expect(204);
    await h.call('get', '/api/auth/session', null, { cookie: kept.session.pair }).expect(200);

    // The live session expires (7 days), answers 401 at once, and is deleted a day later.
    at(expiresAt, 0);
    await h.call('get', '/api/auth/session', null, { cookie: kept.session.pair }).expect(401);
    at(expiresAt, RETENTION.sessionsMs - 1);
    await h.service.sweepRetention();
    expect(await exists('sessions', keptHash)).to.equal(true);
    at(expiresAt, RETENTION.sessionsMs + 1);
    await h.service.sweepRetention();
    expect(await exists('sessions', keptHash)).to.equal(false);
    await h.call('get', '/api/auth/session', null, { cookie: kept.session.pair }).expect(401);
  });

  it('never deletes the history entries (the audit record), and a change leaves nothing pending once finished', async () => {
    const registered = await h.call('post', '/api/workspace/publishers', OWNER).send({ type: 'channel', link: 'https://t.me/retention_channel' }).expect(201);
    const id = registered.body.id as number;
    await h.call('post', `/api/workspace/publishers/${id}/submit`, OWNER).expect(200);
    await waitFor(() => h.events.some((event) => event.type === 'publisher.submitted' && event.aggregateId === String(id)));
    // The history entries are written right after the answers.
    const history = await waitFor(async () => ((await count('publisher_history', { entityId: id })) === 2 ? 2 : 0), { message: 'both history entries' });

    at(h.clock.now(), HOUR + 1);
    await h.service.sweepRetention();
    expect(await count('publisher_history', { entityId: id })).to.equal(history);
    // Its writer removes a change from the record's document right after its answer.
    await waitFor(async () => (await count('publishers', { _id: id, pendingSince: { $exists: true } })) === 0, { message: 'every change finished' });

    // The next change still publishes its event once.
    await h.call('post', `/api/workspace/publishers/${id}/approve`, ADMIN).expect(200);
    await waitFor(() => h.events.some((event) => event.type === 'publisher.approved' && event.aggregateId === String(id)));
    await h.service.relay.flush();
    // A second copy published by that pass would be queued ahead of a later change's event: once that
    // one is in, nothing else came.
    await h.call('post', `/api/workspace/publishers/${id}/pause`, ADMIN).expect(200);
    await waitFor(() => h.events.some((event) => event.type === 'publisher.paused' && event.aggregateId === String(id)), { message: 'the later change published' });
    expect(h.events.filter((event) => event.type === 'publisher.approved' && event.aggregateId === String(id))).to.have.length(1);
  });
});

describe('publisher-identity: the retention sweep runs on its own', () => {
  let h: Harness;
  let client: MongoClient;

  before(async () => {
    h = await startHarness({ RETENTION_SWEEP_INTERVAL_MS: '100' });
    client = await MongoClient.connect(h.infra.mongoUrl, { retryWrites: false });
  });
  after(async () => {
    await h.stop();
    await client.db(h.env.MONGO_DB).dropDatabase().catch(() => undefined);
    await client.close();
  });

  it('sweeps every RETENTION_SWEEP_INTERVAL_MS with the time of the service clock, and stops with the service', async () => {
    const updates = client.db(h.env.MONGO_DB).collection('webhook_updates');
    await updates.insertOne({ _id: 1 as never, at: h.clock.now() });
    // A sweep that keeps the record leaves no trace to wait for: three intervals pass with it kept.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await updates.countDocuments({ _id: 1 as never })).to.equal(1);
    h.clock.advance(RETENTION.webhookUpdatesMs + 1);
    await waitFor(async () => (await updates.countDocuments({ _id: 1 as never })) === 0, { timeoutMs: 5000, message: 'the periodic sweep did not run' });
  });
});
