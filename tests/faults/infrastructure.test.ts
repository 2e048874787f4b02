/**
 * The whole system (every service behind the gateway) while its infrastructure fails for real:
 * - Redis reached through a TCP relay this test cuts and reopens (the shared Redis is never stopped);
 * - a FerretDB of this test's own (port 27035) killed with SIGKILL and started again;
 * - RabbitMQ's application stopped and started with rabbitmqctl (briefly: others share the broker).
 * Each fault is undone in a finally block and again in the after hook, whatever happened.
 */
import { reservedPort, TcpRelay, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import fc from 'fast-check';
import { Browser, signedIn, type PublisherServer } from '../e2e/support/clients';
import { sendRaw } from '../e2e/support/raw-http';
import { activeCampaign, approvedPublisher, campaignInput, type Campaign } from '../e2e/support/scenario';
import { ADMIN_ID, startSystem, type System } from '../e2e/support/system';
import { amqpAnswers, OwnFerret, rabbitStartApp, rabbitStopApp } from './support/machine';
import { AdTraffic, expectCleanProblem, expectTotalsSettle, observe, timed, totalsOf, type AdAnswer } from './support/traffic';

describe('faults of the infrastructure under the running system', function () {
  this.timeout(180_000);
  let ferret: OwnFerret | undefined;
  const sharedRedis = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const redisRelay = new TcpRelay(sharedRedis.toString());
  let system: System | undefined;
  let admin: Browser;
  let advertiser: Browser;

  before(async function () {
    this.timeout(120_000);
    ferret = new OwnFerret('ferretdb-faults', await reservedPort());
    const mongoUrl = await ferret.up();
    await redisRelay.open();
    const through = { MONGO_URL: mongoUrl, REDIS_URL: redisRelay.url };
    system = await startSystem({
      settings: {
        'publisher-identity': through,
        campaign: through,
        allocation: through,
        tracking: through,
        placement: through,
        notification: through,
        web: through,
      },
    });
    admin = await signedIn(system, ADMIN_ID);
    advertiser = await signedIn(system, '9501');
  });

  after(async function () {
    this.timeout(120_000);
    // Whatever a test left behind: the broker running, the relay open, our FerretDB gone.
    if (!(await amqpAnswers())) await rabbitStartApp();
    if (!redisRelay.isOpen) await redisRelay.open();
    await system?.stop();
    await redisRelay.cut();
    await ferret?.remove();
  });

  /** An owner with `count` approved bot publishers, each with its own key (and its own rate limit). */
  async function publishersOf(accountId: string, count: number): Promise<{ owner: Browser; servers: PublisherServer[] }> {
    if (!system) throw new Error('no system');
    const owner = await signedIn(system, accountId);
    const servers: PublisherServer[] = [];
    for (let i = 0; i < count; i += 1) servers.push((await approvedPublisher(system, owner, admin)).server);
    return { owner, servers };
  }

  /** Asks until the campaign is selectable; `seen` gets every status (each one counts against the limit). */
  async function firstAd(server: PublisherServer, language: string, seen: number[] = []): Promise<AdAnswer> {
    return waitFor(
      async () => {
        const answer = await server.ad(language);
        seen.push(answer.status);
        return answer.status === 200 ? (answer.body as unknown as AdAnswer) : null;
      },
      { timeoutMs: 15_000, message: `an ad in ${language}` },
    );
  }

  it('Redis cut off: 503 at once, recovery by itself, and the publisher limit still holds', async () => {
    await activeCampaign(advertiser, admin, { language: 'nl' });
    const { servers } = await publishersOf('9502', 1);
    const server = servers[0] as PublisherServer;
    const seen: number[] = [];
    await firstAd(server, 'nl', seen);
    for (let i = 0; i < 9; i += 1) {
      expect((await server.ad('nl')).status).to.equal(200);
      seen.push(200);
    }
    const ad = await firstAd(server, 'nl', seen);
    // Answered requests of this minute's window (a 204 before the campaign was selectable counts too).
    let answered = seen.filter((status) => status === 200 || status === 204).length;

    const outage: number[] = [];
    await redisRelay.cut();
    try {
      for (let i = 0; i < 3; i += 1) {
        const sent = await timed(() => server.ad('nl'));
        expectCleanProblem(sent, 503, 'ad request while Redis is cut off');
        outage.push(sent.ms);
      }
      expectCleanProblem(await timed(() => server.confirm(ad.delivery_token)), 503, 'confirmation while Redis is cut off');
      // Sign-in and the site's impressions keep their limits in Redis: refused the same way.
      expectCleanProblem(await timed(() => new Browser(system as System).post('/api/auth/login')), 503, 'sign-in start while Redis is cut off');
      expectCleanProblem(
        await timed(() => new Browser(system as System).post('/api/site/placements/home-feature/impressions', {})),
        503,
        'site impression while Redis is cut off',
      );
    } finally {
      await redisRelay.open();
    }
    // Refused, never hung: a 503 is the service's own answer (the gateway gives 502 for an unreachable
    // upstream and 504 past its upstream timeout), and the Redis client ends a call at once or at its own
    // one-second deadline (packages/platform/test/redis/redis.int.test.ts). The times are recorded, not judged.
    observe('Redis cut: ms to 503', outage);

    const reopenedAt = Date.now();
    let attempts = 0;
    await waitFor(
      async () => {
        attempts += 1;
        const status = (await server.ad('nl')).status;
        if (status === 200) answered += 1;
        return status === 200;
      },
      { timeoutMs: 10_000, intervalMs: 200, message: 'ad requests to recover after Redis came back' },
    );
    expect((await server.confirm(ad.delivery_token)).status).to.equal(200);

    // The limit kept its count through the outage: at most 60 answered in the window, then 429.
    let refused = null as Awaited<ReturnType<PublisherServer['ad']>> | null;
    for (let i = 0; i < 70 && !refused; i += 1) {
      const answer = await server.ad('nl');
      if (answer.status === 200) answered += 1;
      else if (answer.status === 429) refused = answer;
      else expect.fail(`unexpected ${answer.status} after recovery: ${answer.text}`);
    }
    observe('Redis cut: answered in window before 429', { answered, uncertain: outage.length + attempts, recoveryMs: Date.now() - reopenedAt });
    expect(refused, 'a 429 after 60 requests').to.not.equal(null);
    expect(Number(refused?.headers.get('retry-after'))).to.be.at.least(1);
    // Requests refused with 503 may or may not have reached Redis before the cut; every other one counted.
    const uncertain = outage.length + attempts;
    expect(answered).to.be.at.most(60).and.at.least(60 - uncertain);
    expect((await server.ad('nl')).status).to.equal(429);
  });

  it('malformed requests while Redis is cut off: 4xx or 503, never another 5xx, never a hang, all up afterwards', async () => {
    if (!system) throw new Error('no system');
    const port = Number(new URL(system.baseUrl).port);
    const { servers } = await publishersOf('9505', 1);
    const key = (servers[0] as PublisherServer).key;
    const segment = fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.constantFrom('', '%', '%zz', '..', '$ne', 'a.b', 'home-feature', '1'));
    const request = fc.record({
      method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'),
      path: fc.tuple(
        fc.constantFrom('/api/network/ad?language={x}', '/api/network/delivery', '/api/network/click/{x}', '/api/auth/login', '/api/auth/session', '/api/site/placements/{x}/impressions', '/api/workspace/campaigns/{x}', '/api/workspace/publishers', '/api/workspace/stats?from={x}'),
        segment,
      ).map(([template, value]) => template.replace('{x}', encodeURIComponent(value).slice(0, 500))),
      auth: fc.constantFrom(`Bearer ${key}`, 'Bearer pilot_pk_x', 'Basic x', ''),
      session: fc.boolean(),
      body: fc.option(fc.oneof(fc.json().map((text) => Buffer.from(text)), fc.uint8Array({ maxLength: 512 }).map((bytes) => Buffer.from(bytes)), fc.constant(Buffer.from('{"token":{"$ne":null}}')))),
    });
    const statuses = new Map<number, number>();
    await redisRelay.cut();
    try {
      await fc.assert(
        fc.asyncProperty(request, async (input) => {
          const headers: [string, string][] = [['Origin', system?.origin ?? ''], ['Content-Type', 'application/json']];
          if (input.auth) headers.push(['Authorization', input.auth]);
          if (input.session) headers.push(['Cookie', advertiser.cookieHeader()]);
          const answer = await sendRaw(port, { method: input.method, path: input.path, headers, body: input.body ?? undefined }, 10_000);
          statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
          if (answer.status === 0 || (answer.status >= 500 && answer.status !== 503)) {
            throw new Error(`${input.method} ${input.path.slice(0, 100)} answered ${answer.status}: ${answer.body.slice(0, 300)}`);
          }
        }),
        { numRuns: Number(process.env.FAULT_FUZZ_RUNS ?? 300) },
      );
    } finally {
      await redisRelay.open();
    }
    observe('malformed requests while Redis is cut: statuses', Object.fromEntries(statuses));
    expect(statuses.get(503) ?? 0, 'requests that needed Redis were refused with 503').to.be.greaterThan(0);
    for (const replica of system.replicas) {
      await waitFor(async () => (await fetch(`${replica.running?.url}/readyz`)).status === 200, {
        timeoutMs: 10_000,
        message: `${replica.service} ready again after the cut`,
      });
    }
    expect((await (servers[0] as PublisherServer).ad('nl')).status).to.equal(200);
  });

  it('FerretDB killed and restarted: workspace 503; ads, confirmations and clicks go on (counted in Redis); nothing lost or doubled', async () => {
    await activeCampaign(advertiser, admin, { language: 'pt' });
    const { owner, servers } = await publishersOf('9503', 1);
    const server = servers[0] as PublisherServer;
    const ads: AdAnswer[] = [await firstAd(server, 'pt')];
    for (let i = 0; i < 4; i += 1) {
      const answer = await server.ad('pt');
      expect(answer.status, answer.text).to.equal(200);
      ads.push(answer.body as unknown as AdAnswer);
    }
    for (const ad of ads.slice(0, 2)) expect((await server.confirm(ad.delivery_token)).status).to.equal(200);
    const firstClick = await fetch(ads[0]?.click_url ?? '', { redirect: 'manual' });
    expect(firstClick.status).to.equal(302);
    await expectTotalsSettle(owner, { adRequests: 5, confirmedDeliveries: 2, clickedLinks: 1 });
    const campaignsBefore = await advertiser.get('/api/workspace/campaigns');
    expect(campaignsBefore.status).to.equal(200);

    if (!ferret) throw new Error('no FerretDB');
    await ferret.kill();
    try {
      expectCleanProblem(await timed(() => advertiser.get('/api/workspace/campaigns')), 503, 'campaign list while FerretDB is down');
      expectCleanProblem(await timed(() => owner.get('/api/workspace/stats')), 503, 'stats while FerretDB is down');
      expectCleanProblem(await timed(() => owner.get('/api/workspace/publishers')), 503, 'publisher list while FerretDB is down');
      expectCleanProblem(await timed(() => new Browser(system as System).post('/api/auth/login')), 503, 'sign-in start while FerretDB is down');
      expectCleanProblem(
        await timed(() => advertiser.post('/api/workspace/campaigns', campaignInput())),
        503,
        'a workspace write while FerretDB is down',
      );
      // Checking a body needs no database: the gateway keeps the session, the service refuses it.
      expectCleanProblem(await timed(() => advertiser.post('/api/workspace/campaigns', { name: 'x' })), 422, 'an invalid workspace write while FerretDB is down');
      // The network API needs no database: confirmations and clicks are counted in Redis and folded later.
      const confirmed = await server.confirm(ads[2]?.delivery_token ?? '');
      expect(confirmed.status, `confirmation while FerretDB is down: ${confirmed.text}`).to.equal(200);
      expect((await fetch(ads[1]?.click_url ?? '', { redirect: 'manual' })).status, 'click while FerretDB is down').to.equal(302);
      // The ad endpoint needs no database either: it answers from its cache and counts in Redis.
      for (let i = 0; i < 5; i += 1) {
        const answer = await server.ad('pt');
        expect(answer.status, answer.text).to.equal(200);
        ads.push(answer.body as unknown as AdAnswer);
      }
    } finally {
      await ferret.up();
    }
    const restartedAt = Date.now();

    await waitFor(async () => (await advertiser.get('/api/workspace/campaigns')).status === 200, {
      timeoutMs: 30_000,
      intervalMs: 250,
      message: 'workspace calls to recover after FerretDB came back',
    });
    await waitFor(async () => (await server.confirm(ads[2]?.delivery_token ?? '')).status === 200, {
      timeoutMs: 30_000,
      intervalMs: 250,
      message: 'confirmations to recover after FerretDB came back',
    });
    observe('FerretDB: ms from restart to workspace and confirmations answering', Date.now() - restartedAt);
    // Every allocation of the outage confirmed now, and the ones before confirmed a second time.
    for (const ad of ads) expect((await server.confirm(ad.delivery_token)).status).to.equal(200);
    expect((await fetch(ads[1]?.click_url ?? '', { redirect: 'manual' })).status).to.equal(302);
    await expectTotalsSettle(owner, { adRequests: 10, confirmedDeliveries: 10, clickedLinks: 2 });
    expect((await advertiser.get('/api/workspace/campaigns')).body).to.deep.equal(campaignsBefore.body);
  });

  it('RabbitMQ stopped and started during ad traffic: 503 within 1 s, recovery within 10 s, every 200 counted, no event lost', async function () {
    this.timeout(120_000);
    const served = await activeCampaign(advertiser, admin, { language: 'fi' });
    const paused: Campaign = await activeCampaign(advertiser, admin, { language: 'sv' });
    const { owner, servers } = await publishersOf('9504', 4);
    for (const server of servers) await firstAd(server, 'fi');
    await firstAd(servers[0] as PublisherServer, 'sv');
    const warmUp = servers.length + 1;
    await expectTotalsSettle(owner, { adRequests: warmUp });

    const traffic = new AdTraffic(servers, 'fi', 100);
    traffic.start();
    let stoppedAt = 0;
    let backAt = 0;
    let pausedAnswer = 0;
    try {
      await traffic.next(200, Date.now(), 10_000, 'traffic answered before the outage');
      await rabbitStopApp();
      stoppedAt = Date.now();
      // Outage: a few answers, and a state change made meanwhile (kept in campaign's outbox).
      await traffic.next(503, stoppedAt, 10_000, 'a 503 during the outage');
      pausedAnswer = (await advertiser.post(`/api/workspace/campaigns/${paused.id}/pause`)).status;
      // Traffic goes on through the outage: another 503 after the pause was stored.
      await traffic.next(503, Date.now(), 10_000, 'a 503 after the pause during the outage');
    } finally {
      await rabbitStartApp();
      backAt = Date.now();
    }
    try {
      const recovered = await traffic.next(200, backAt, 10_000, 'ad requests to recover within 10 s of the broker coming back');
      observe('RabbitMQ: ms from broker back to first 200', recovered.at + recovered.ms - backAt);
      // Traffic goes on after the recovery: ten more answers, every one of them a 200 or a clean 503.
      const sentBefore = traffic.sent.length;
      await waitFor(() => traffic.sent.length >= sentBefore + 10, { timeoutMs: 10_000, message: 'traffic after the recovery' });
    } finally {
      await traffic.stop();
    }

    // Stored, not yet in effect while the broker is down: the answer says so.
    expect(pausedAnswer, 'pausing while the broker is down').to.equal(202);
    observe('RabbitMQ: statuses', traffic.statuses());
    observe('RabbitMQ: ms to each 503', traffic.sent.filter((sent) => sent.status !== 200).map((sent) => sent.ms));
    observe('RabbitMQ: outage (stop_app returned to start_app returned) ms', backAt - stoppedAt);
    // Every answer was a 200 or, around the outage, a clean 503: the service's own refusal, never a hang
    // (the gateway answers 502 for an unreachable upstream and 504 past its upstream timeout; the bus
    // refuses a publish at once while disconnected, packages/messaging/test/bus/bus.int.test.ts). Times are recorded above.
    const refused = traffic.sent.filter((sent) => sent.status !== 200);
    expect(refused.filter((sent) => sent.at >= stoppedAt && sent.at < backAt).length).to.be.greaterThan(0);
    for (const sent of refused) expectCleanProblem(sent, 503, 'ad request while RabbitMQ is stopped');

    // The pause made during the outage reached every cache and the campaign's own record.
    const swedish: number[] = [];
    await waitFor(
      async () => {
        swedish.push((await (servers[1] as PublisherServer).ad('sv')).status);
        return swedish.at(-1) === 204;
      },
      { timeoutMs: 15_000, intervalMs: 200, message: 'the campaign paused during the outage to leave the ad cache' },
    );
    expect((await advertiser.get<Campaign>(`/api/workspace/campaigns/${paused.id}`)).body.status).to.equal('paused');
    expect((await advertiser.get<Campaign>(`/api/workspace/campaigns/${served.id}`)).body.status).to.equal('active');
    // Every 200 was counted exactly once, none of the 503s was.
    const answered200 = warmUp + traffic.count(200) + swedish.filter((status) => status === 200).length;
    await expectTotalsSettle(owner, { adRequests: answered200 }, 30_000);
    expect((await totalsOf(owner)).adRequests).to.equal(answered200);
  });
});
