/**
 * The sessions the gateway keeps (SESSION_CACHE_MS), against real Redis and a
 * publisher-identity standing in that counts how often it is asked. The logout through the real
 * publisher-identity and two gateways is in services/publisher-identity/test/through-gateway.int.test.ts.
 */
import { createRedis, EndedSessionMarkers, SESSION_CACHE_MAX_MS, verifyInternalCall, waitForRedis, type Principal, type Redis } from '@pilot/platform';
import { ManualClock, TcpRelay, uniqueName, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import type { Request } from 'express';
import request from 'supertest';
import { loadConfig } from '../src/config';
import type { RunningGateway } from '../src/start';
import { SECRET, standIn, startGateway, type StandIn } from './support';

const RESOLVE_PATH = '/internal/sessions/resolve';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

interface StoredSession {
  principal: Principal;
  /** Left out of the answer when null, as a publisher-identity from before the cache answers. */
  expiresAt: Date | null;
  ended: boolean;
}

describe('gateway: the sessions it keeps', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    while (cleanup.length > 0) await cleanup.pop()?.();
  });

  let clock: ManualClock;
  let sessions: Map<string, StoredSession>;
  let identity: StandIn;
  let campaign: StandIn;
  /** The account each call forwarded to campaign was signed for. */
  let forwardedAs: Array<Principal | null>;
  let redis: Redis;
  let prefix: string;
  let markers: EndedSessionMarkers;

  beforeEach(async () => {
    clock = new ManualClock(Date.parse('2026-06-01T12:00:00Z'));
    sessions = new Map();
    forwardedAs = [];
    identity = await standIn((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url !== RESOLVE_PATH) return void res.end('{}');
      const session = sessions.get(String(req.headers['x-pilot-session']));
      const live = session && !session.ended && (!session.expiresAt || clock.now() < session.expiresAt);
      res.statusCode = live ? 200 : 401;
      res.end(JSON.stringify(live ? { ...session.principal, ...(session.expiresAt ? { expiresAt: session.expiresAt.toISOString() } : {}) } : { code: 'session_invalid' }));
    });
    cleanup.push(identity.close);
    campaign = await standIn((req, res) => {
      const asExpress = Object.assign(req, { originalUrl: req.url ?? '/' }) as unknown as Request;
      if (req.url !== '/readyz') forwardedAs.push(verifyInternalCall(asExpress, SECRET)?.principal ?? null);
      res.setHeader('content-type', 'application/json');
      res.end('{"items":[]}');
    });
    cleanup.push(campaign.close);
    redis = createRedis(REDIS_URL, 'gateway-session-cache-test');
    await waitForRedis(redis);
    cleanup.push(async () => redis.disconnect());
    prefix = `${uniqueName('gateway-sessions')}:`;
    markers = new EndedSessionMarkers(redis, prefix);
  });

  const resolves = () => identity.requests.filter((req) => req.url === RESOLVE_PATH).length;

  function signIn(sessionId: string, principal: Principal, lifeMs: number | null = 3_600_000): string {
    sessions.set(sessionId, { principal, expiresAt: lifeMs === null ? null : new Date(clock.now().getTime() + lifeMs), ended: false });
    return `pilot_session=${sessionId}`;
  }

  async function gateway(extra: Record<string, string> = {}): Promise<RunningGateway> {
    const started = await startGateway({ identity: identity.url, campaign: campaign.url }, { REDIS_KEY_PREFIX: prefix, ...extra }, { clock });
    cleanup.push(started.stop);
    return started;
  }

  const list = (gatewayUrl: string, cookie: string) => request(gatewayUrl).get('/api/workspace/campaigns').set('cookie', cookie);

  const ADA: Principal = { accountId: '4201', displayName: 'ada', admin: true };

  it('asks publisher-identity once and answers the next calls with the same account from what it keeps', async () => {
    const cookie = signIn('session-of-ada-0123456789', ADA);
    const { url } = await gateway();
    for (let i = 0; i < 3; i += 1) await list(url, cookie).expect(200);
    expect(resolves()).to.equal(1);
    expect(forwardedAs).to.deep.equal([ADA, ADA, ADA]);
    const audit = await request(url).get('/api/workspace/audit?entity=campaign').set('cookie', cookie);
    expect(audit.status, 'the audit composition reads the kept session too').to.not.equal(401);
    expect(resolves()).to.equal(1);
  });

  it('keeps a session SESSION_CACHE_MS at most, then asks publisher-identity again', async () => {
    const cookie = signIn('session-of-ada-0123456789', ADA);
    const { url } = await gateway({ SESSION_CACHE_MS: '20000' });
    await list(url, cookie).expect(200);
    clock.advance(19_999);
    await list(url, cookie).expect(200);
    expect(resolves()).to.equal(1);
    clock.advance(1);
    await list(url, cookie).expect(200);
    expect(resolves()).to.equal(2);
  });

  it('uses a kept session no longer than it lives: past its expiresAt the call is refused', async () => {
    const cookie = signIn('session-of-ada-0123456789', ADA, 30_000);
    const { url } = await gateway();
    await list(url, cookie).expect(200);
    clock.advance(29_999);
    await list(url, cookie).expect(200);
    expect(resolves()).to.equal(1);
    clock.advance(1);
    const refused = await list(url, cookie).expect(401);
    expect(refused.body.code).to.equal('not_signed_in');
    expect(resolves(), 'asked again, not answered from what it kept').to.equal(2);
  });

  it('refuses a kept session at once on every gateway once its ended-session marker is in Redis, without asking publisher-identity', async () => {
    const cookie = signIn('session-of-ada-0123456789', ADA);
    const first = await gateway();
    const second = await gateway();
    await list(first.url, cookie).expect(200);
    await list(second.url, cookie).expect(200);
    expect(resolves()).to.equal(2);
    // What publisher-identity's logout does: end the session, then write the marker.
    sessions.get('session-of-ada-0123456789')!.ended = true;
    await markers.markEnded('session-of-ada-0123456789', 60_000);
    for (const { url } of [first, second]) {
      const refused = await list(url, cookie).expect(401);
      expect(refused.body).to.include({ code: 'not_signed_in' });
    }
    expect(resolves()).to.equal(2);
    expect(forwardedAs).to.have.length(2);
  });

  it('resolves with publisher-identity while Redis is down or hung, so a kept session neither fails nor outlives a logout', async function () {
    this.timeout(20_000);
    const relay = new TcpRelay(REDIS_URL);
    await relay.open();
    cleanup.push(() => relay.cut());
    const cookie = signIn('session-of-ada-0123456789', ADA);
    const { url } = await gateway({ REDIS_URL: relay.url });
    await list(url, cookie).expect(200);
    await list(url, cookie).expect(200);
    expect(resolves()).to.equal(1);

    await relay.cut();
    await list(url, cookie).expect(200);
    await list(url, cookie).expect(200);
    expect(resolves(), 'Redis down: asked every time').to.equal(3);

    await relay.open();
    await waitFor(
      async () => {
        const asked = resolves();
        await list(url, cookie).expect(200);
        return resolves() === asked;
      },
      { timeoutMs: 10_000, message: 'the kept session used again once Redis answers' },
    );

    relay.freeze();
    const asked = resolves();
    const started = Date.now();
    await list(url, cookie).expect(200);
    expect(Date.now() - started, 'waits no longer than the Redis command timeout').to.be.below(3000);
    expect(resolves(), 'Redis hung: asked').to.equal(asked + 1);

    await relay.cut();
    sessions.get('session-of-ada-0123456789')!.ended = true;
    const refused = await list(url, cookie).expect(401);
    expect(refused.body.code, 'ended while Redis is down: publisher-identity says so').to.equal('not_signed_in');
  });

  it('with SESSION_CACHE_MS=0 asks publisher-identity on every call, as without a cache', async () => {
    const cookie = signIn('session-of-ada-0123456789', ADA);
    const { url } = await gateway({ SESSION_CACHE_MS: '0' });
    for (let i = 0; i < 3; i += 1) await list(url, cookie).expect(200);
    expect(resolves()).to.equal(3);
    expect(forwardedAs).to.deep.equal([ADA, ADA, ADA]);
    sessions.get('session-of-ada-0123456789')!.ended = true;
    await list(url, cookie).expect(401);
  });

  it('keeps nothing when publisher-identity does not say when the session expires', async () => {
    const cookie = signIn('session-of-ada-0123456789', ADA, null);
    const { url } = await gateway();
    for (let i = 0; i < 2; i += 1) await list(url, cookie).expect(200);
    expect(resolves()).to.equal(2);
  });

  it('keeps no unknown session: every call with it asks again and is refused', async () => {
    const { url } = await gateway();
    for (let i = 0; i < 2; i += 1) await list(url, 'pilot_session=nobody-0123456789abcdef').expect(401);
    expect(resolves()).to.equal(2);
    expect(forwardedAs).to.deep.equal([]);
  });

  it('reads SESSION_CACHE_MS as 60 s by default and refuses a value past SESSION_CACHE_MAX_MS, naming it', () => {
    const base = { NODE_ENV: 'test', INTERNAL_SECRET: SECRET };
    expect(loadConfig(base).SESSION_CACHE_MS).to.equal(60_000);
    expect(loadConfig({ ...base, SESSION_CACHE_MS: '0' }).SESSION_CACHE_MS).to.equal(0);
    expect(loadConfig({ ...base, SESSION_CACHE_MS: String(SESSION_CACHE_MAX_MS) }).SESSION_CACHE_MS).to.equal(SESSION_CACHE_MAX_MS);
    for (const bad of [String(SESSION_CACHE_MAX_MS + 1), '-1', '1.5', 'soon']) {
      expect(() => loadConfig({ ...base, SESSION_CACHE_MS: bad }), bad).to.throw(/SESSION_CACHE_MS/);
    }
  });
});
