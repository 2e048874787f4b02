/**
 * A logout tells every gateway replica at once that the session has ended: a Redis marker written before
 * the 204. Redis reaches the service through a relay the test can cut.
 */
import { EndedSessionMarkers, SESSION_CACHE_MAX_MS } from '@pilot/platform';
import { TcpRelay, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import request from 'supertest';
import { signedInSession, startHarness, type Harness } from './support';

const SESSION_TTL_MS = 168 * 3600 * 1000;

describe('publisher-identity: a logout marks the session ended for the gateways', () => {
  let h: Harness;
  let relay: TcpRelay;
  let markers: EndedSessionMarkers;

  before(async function () {
    this.timeout(30_000);
    relay = new TcpRelay(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    await relay.open();
    h = await startHarness({ REDIS_URL: relay.url });
    markers = new EndedSessionMarkers(h.redis, h.infra.redisPrefix);
  });

  after(async () => {
    if (relay && !relay.isOpen) await relay.open();
    await h?.stop();
    await relay?.cut();
  });

  const logout = (cookie: string) => h.call('post', '/api/auth/logout', null, { cookie });

  it('writes the marker before it answers 204, kept for the rest of the session and the longest a gateway caches it', async () => {
    const session = await signedInSession(h, '5001');
    expect(await markers.hasEnded(session.value)).to.equal(false);
    h.clock.advance(3600 * 1000);
    await logout(session.pair).expect(204);
    expect(await markers.hasEnded(session.value)).to.equal(true);
    const expected = SESSION_TTL_MS - 3600 * 1000 + SESSION_CACHE_MAX_MS;
    expect(await h.redis.pttl(markers.keyOf(session.value))).to.be.within(expected - 5000, expected);
  });

  it('writes the marker again at the logout of a session already ended, and records one sign-out', async () => {
    const accountId = '5002';
    const session = await signedInSession(h, accountId);
    h.clock.advance(1000); // the audit orders by time: the sign-out comes after the sign-in
    await logout(session.pair).expect(204);
    await h.redis.del(markers.keyOf(session.value));
    await logout(session.pair).expect(204);
    expect(await markers.hasEnded(session.value), 'the retried logout repairs a lost marker').to.equal(true);
    const audit = await h.call('get', '/internal/audit?entity=account', { accountId, admin: false }).expect(200);
    expect(audit.body.items.map((item: { action: string }) => item.action)).to.deep.equal(['signed_out', 'signed_in']);
  });

  it('writes no marker for a session it does not know', async () => {
    const unknown = 'U'.repeat(43);
    await logout(`pilot_session=${unknown}`).expect(204);
    expect(await markers.hasEnded(unknown)).to.equal(false);
  });

  it('answers a logout 503 while Redis is unreachable, with the session ended already; the retry writes the marker', async function () {
    this.timeout(20_000);
    const session = await signedInSession(h, '5003');
    await relay.cut();
    const refused = await logout(session.pair).expect(503);
    expect(refused.body.code).to.equal('service_unavailable');
    await h.call('get', '/internal/sessions/resolve', null).set('x-pilot-session', session.value).expect(401);
    expect(await markers.hasEnded(session.value)).to.equal(false);

    await relay.open();
    await waitFor(async () => (await request(h.service.url).get('/readyz')).status === 200, { timeoutMs: 10_000, message: 'Redis back' });
    await logout(session.pair).expect(204);
    expect(await markers.hasEnded(session.value)).to.equal(true);
  });
});
