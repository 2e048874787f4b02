/**
 * Service processes stopped under load, as an orchestrator or a crash would stop them. The system runs
 * in this process behind a real gateway, except tracking (one child process: the only tracking replica)
 * and the second allocation replica (a child process beside an in-process one):
 * - tracking gets SIGTERM while requests are in flight and under ad and confirmation traffic: the
 *   in-flight requests finish, it exits 0, and once started again it counts what happened meanwhile;
 * - the allocation child gets SIGKILL under ad traffic: the gateway sends the traffic to the other one.
 * The children's own logs (debug level) are checked for keys and tokens as well.
 */
import { signedHeaders } from '@pilot/platform';
import { reservedPort, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { signedIn, type Browser, type PublisherServer } from '../e2e/support/clients';
import { activeCampaign, approvedPublisher } from '../e2e/support/scenario';
import { ADMIN_ID, startSystem, type System } from '../e2e/support/system';
import { ChildService } from './support/processes';
import { SlowRequest } from './support/slow-request';
import { AdTraffic, expectCleanProblem, expectTotalsSettle, observe, timed, type AdAnswer, type Sent } from './support/traffic';

/** The count of answers with `status` to GET /api/network/ad that one replica reports in /metrics. */
async function adAnswersOf(url: string, status: number): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text
    .split('\n')
    .find((candidate) => candidate.startsWith('http_request_duration_seconds_count{') && candidate.includes('route="/api/network/ad"') && candidate.includes(`status="${status}"`) && candidate.includes('method="GET"'));
  return line ? Number(line.split(' ').pop()) : 0;
}

describe('service processes stopped under load', function () {
  this.timeout(180_000);
  let system: System | undefined;
  let tracking: ChildService;
  let allocation: ChildService;
  let admin: Browser;
  let advertiser: Browser;

  before(async function () {
    this.timeout(150_000);
    const trackingPort = await reservedPort();
    const allocationPort = await reservedPort();
    system = await startSystem({
      replicas: { tracking: 0, allocation: 1 },
      external: { tracking: [`http://127.0.0.1:${trackingPort}`], allocation: [`http://127.0.0.1:${allocationPort}`] },
    });
    tracking = new ChildService('tracking', trackingPort, system.envFor('tracking', trackingPort), 'debug');
    allocation = new ChildService('allocation', allocationPort, system.envFor('allocation', allocationPort), 'debug');
    await Promise.all([tracking.start(), allocation.start()]);
    admin = await signedIn(system, ADMIN_ID);
    advertiser = await signedIn(system, '9601');
  });

  after(async function () {
    this.timeout(60_000);
    await Promise.allSettled([tracking?.ensureStopped(), allocation?.ensureStopped()]);
    await system?.stop();
  });

  async function publishersOf(accountId: string, count: number): Promise<{ owner: Browser; servers: PublisherServer[] }> {
    if (!system) throw new Error('no system');
    const owner = await signedIn(system, accountId);
    const servers: PublisherServer[] = [];
    for (let i = 0; i < count; i += 1) servers.push((await approvedPublisher(system, owner, admin)).server);
    return { owner, servers };
  }

  async function adsOf(server: PublisherServer, language: string, count: number): Promise<AdAnswer[]> {
    const ads: AdAnswer[] = [];
    await waitFor(async () => (await server.ad(language)).status === 200 && ads.length === 0, { timeoutMs: 15_000, message: `an ad in ${language}` });
    ads.length = 0;
    for (let i = 0; i < count; i += 1) {
      const answer = await server.ad(language);
      expect(answer.status, answer.text).to.equal(200);
      ads.push(answer.body as unknown as AdAnswer);
    }
    return ads;
  }

  it('tracking sent SIGTERM under load: in-flight requests finish, it exits 0, and after a restart it catches up', async () => {
    if (!system) throw new Error('no system');
    const gatewayPort = Number(new URL(system.baseUrl).port);
    await activeCampaign(advertiser, admin, { language: 'da' });
    const { owner, servers } = await publishersOf('9602', 2);
    const [first, second] = servers as [PublisherServer, PublisherServer];
    const ads = await adsOf(first, 'da', 12);
    const adsCounted = 1 + ads.length; // the first ad adsOf waited for is an allocation too
    await expectTotalsSettle(owner, { adRequests: adsCounted, confirmedDeliveries: 0 });

    // Three confirmations certainly in flight: two through the gateway, one straight to the process.
    const bodyOf = (ad: AdAnswer) => Buffer.from(JSON.stringify({ token: ad.delivery_token }));
    const network = { authorization: `Bearer ${first.key}`, 'content-type': 'application/json' };
    const inFlight = [
      new SlowRequest(gatewayPort, 'POST', '/api/network/delivery', network, bodyOf(ads[0] as AdAnswer)),
      new SlowRequest(gatewayPort, 'POST', '/api/network/delivery', network, bodyOf(ads[1] as AdAnswer)),
      new SlowRequest(
        tracking.port,
        'POST',
        '/api/network/delivery',
        { ...network, ...signedHeaders(system.infra.internalSecret, { method: 'POST', url: '/api/network/delivery', body: bodyOf(ads[2] as AdAnswer) }) },
        bodyOf(ads[2] as AdAnswer),
      ),
    ];
    for (const request of inFlight) await request.begin();
    // Let the process read the headers of all three (a setup pause, not a measured deadline): neither the
    // gateway nor tracking shows that it holds a request whose body is still coming, so there is nothing
    // to wait on.
    await new Promise((resolve) => setTimeout(resolve, 1500));

    // Load while it stops: ads (allocation keeps answering, its events wait in tracking's queue) and
    // confirmations of the other ads (refused cleanly while tracking is away, never hung, never a 500).
    const adTraffic = new AdTraffic([second], 'da', 100);
    const confirmations: { ad: AdAnswer; sent: Sent }[] = [];
    let confirming = true;
    const confirmLoop = (async () => {
      for (const ad of ads.slice(3)) {
        if (!confirming) break;
        confirmations.push({ ad, sent: await timed(() => first.confirm(ad.delivery_token)) });
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
    })();
    adTraffic.start();
    let exitCode: number | null = -1;
    let finished: { status: number; text: string }[] = [];
    try {
      await adTraffic.next(200, Date.now(), 10_000, 'ad traffic running');
      const logBefore = tracking.log.length;
      const stopping = tracking.signal('SIGTERM');
      // The rest of the in-flight bodies goes out once the process has begun to drain.
      await waitFor(() => tracking.log.slice(logBefore).includes('draining, then stopping'), { timeoutMs: 10_000, message: 'tracking to begin draining' });
      finished = await Promise.all(inFlight.map((request) => request.finish()));
      exitCode = await stopping;
      // Traffic goes on while tracking is away.
      await adTraffic.next(200, Date.now(), 10_000, 'ads answered while tracking is away');
      await adTraffic.more(5, 10_000, 'more ads answered while tracking is away');
    } finally {
      confirming = false;
      await confirmLoop;
      await adTraffic.stop();
      if (!tracking.running) await tracking.start();
    }

    observe('SIGTERM: in-flight answers', finished.map((answer) => answer.status));
    observe('SIGTERM: exit code', exitCode);
    observe('SIGTERM: ad answers meanwhile', adTraffic.statuses());
    observe('SIGTERM: confirmation answers meanwhile', confirmations.map(({ sent }) => sent.status));
    for (const [index, answer] of finished.entries()) expect(answer.status, `in-flight confirmation ${index}: ${answer.text.slice(0, 300)}`).to.equal(200);
    expect(exitCode, `tracking exit code; its output: ${tracking.output.slice(-1000)}`).to.equal(0);
    // Allocation never depended on tracking: every ad request was answered.
    expect(adTraffic.statuses()).to.deep.equal({ 200: adTraffic.sent.length });
    for (const { sent } of confirmations) {
      if (sent.status === 200) continue;
      // Tracking was away (the only replica): the gateway says so cleanly.
      expect(sent.status, sent.text).to.be.oneOf([502, 503]);
      expectCleanProblem(sent, sent.status, 'confirmation while tracking is stopped');
    }

    // Restarted, it catches up: every allocation made while it was away is counted, and a publisher that
    // retries its refused confirmations gets each counted once.
    for (const ad of ads.slice(3)) expect((await first.confirm(ad.delivery_token)).status).to.equal(200);
    for (const ad of ads.slice(0, 3)) expect((await first.confirm(ad.delivery_token)).status).to.equal(200);
    await expectTotalsSettle(owner, { adRequests: adsCounted + adTraffic.count(200), confirmedDeliveries: ads.length }, 30_000);

    // Its own logs at debug level carry no key and no token.
    for (const [name, secret] of [
      ['key', first.key],
      ['delivery token', ads[0]?.delivery_token ?? ''],
      ['click token', new URL(ads[0]?.click_url ?? 'http://x/').pathname.split('/').pop() ?? ''],
    ] as const) {
      expect(secret, name).to.have.length.greaterThan(10);
      expect(tracking.log.includes(secret), `${name} in tracking's log`).to.equal(false);
      expect(allocation.log.includes(secret), `${name} in allocation's log`).to.equal(false);
    }
    expect(tracking.log.length, 'tracking wrote debug logs').to.be.greaterThan(100);
  });

  it('one of two allocation replicas killed under load: the gateway sends the traffic to the other', async () => {
    if (!system) throw new Error('no system');
    const inProcess = system.replicasOf('allocation')[0]?.running?.url ?? '';
    await activeCampaign(advertiser, admin, { language: 'no' });
    const { owner, servers } = await publishersOf('9603', 4);
    let counted = 1 + (await adsOf(servers[0] as PublisherServer, 'no', 1)).length;
    // Both replicas take traffic before the kill.
    const childBefore = await adAnswersOf(allocation.url, 200);
    const inProcessBefore = await adAnswersOf(inProcess, 200);
    for (let i = 0; i < 6; i += 1) expect((await (servers[i % 4] as PublisherServer).ad('no')).status).to.equal(200);
    counted += 6;
    expect(await adAnswersOf(allocation.url, 200)).to.be.greaterThan(childBefore);
    expect(await adAnswersOf(inProcess, 200)).to.be.greaterThan(inProcessBefore);

    // Two clients at once, while the child replica is killed.
    const loads = [new AdTraffic(servers.slice(0, 2), 'no', 80), new AdTraffic(servers.slice(2), 'no', 80)];
    for (const load of loads) load.start();
    let killedAt = 0;
    try {
      await Promise.all(loads.map((load) => load.more(5, 10_000, 'load running')));
      await allocation.signal('SIGKILL');
      killedAt = Date.now();
      // Enough traffic after the kill for every client to have met the missing replica.
      await Promise.all(loads.map((load) => load.more(15, 20_000, 'load after the kill')));
    } finally {
      for (const load of loads) await load.stop();
    }
    const sent = loads.flatMap((load) => load.sent);
    const after = sent.filter((one) => one.at >= killedAt);
    expect(after.length).to.be.greaterThan(10);
    // Every request sent once the replica was gone went to the other one and was answered.
    expect(after.map((one) => one.status)).to.deep.equal(after.map(() => 200));
    // Only a request the dead replica had in hand can have failed, cleanly: at most one per client.
    const failed = sent.filter((one) => one.status !== 200);
    observe('SIGKILL replica: answers after the kill', after.length);
    observe('SIGKILL replica: failed answers', failed.map((one) => `${one.status} ${one.text.slice(0, 120)}`));
    expect(failed.length).to.be.at.most(loads.length);
    for (const one of failed) expectCleanProblem(one, 502, 'ad request in flight at the killed replica');

    // Started again, it is taken back into rotation by the gateway's probe.
    await allocation.start();
    await waitFor(
      async () => {
        expect((await (servers[3] as PublisherServer).ad('no')).status).to.equal(200);
        counted += 1;
        return (await adAnswersOf(allocation.url, 200)) > 0;
      },
      { timeoutMs: 15_000, intervalMs: 200, message: 'the restarted replica to get traffic again' },
    );
    // Nothing answered 200 went uncounted; a request that died with the replica may have been counted.
    counted += sent.filter((one) => one.status === 200).length;
    const totals = await waitFor(
      async () => {
        const answer = await owner.get<{ adRequests: number }>('/api/workspace/stats');
        return answer.body.adRequests >= counted ? answer.body : null;
      },
      { timeoutMs: 20_000, message: 'every answered ad request to be counted' },
    );
    // A late count announces nothing to wait for: one more second for anything still on its way.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const settled = (await owner.get<{ adRequests: number }>('/api/workspace/stats')).body.adRequests;
    observe('SIGKILL replica: counted vs answered 200', { settled, counted });
    expect(settled).to.be.at.least(counted).and.at.most(counted + failed.length);
    expect(totals.adRequests).to.be.at.most(settled);
  });
  it('one of two allocation replicas sent SIGTERM under load: not one request fails', async () => {
    if (!system) throw new Error('no system');
    await activeCampaign(advertiser, admin, { language: 'is' });
    const { owner, servers } = await publishersOf('9604', 4);
    let counted = 1 + (await adsOf(servers[0] as PublisherServer, 'is', 1)).length;
    if (!allocation.running) await allocation.start();
    // The child replica takes its share before it is stopped.
    await waitFor(
      async () => {
        expect((await (servers[1] as PublisherServer).ad('is')).status).to.equal(200);
        counted += 1;
        return (await adAnswersOf(allocation.url, 200)) > 0;
      },
      { timeoutMs: 15_000, intervalMs: 100, message: 'the child replica to take traffic' },
    );

    const loads = [new AdTraffic(servers.slice(0, 2), 'is', 60), new AdTraffic(servers.slice(2), 'is', 60)];
    for (const load of loads) load.start();
    let exitCode: number | null = -1;
    let stoppedAt = 0;
    try {
      await Promise.all(loads.map((load) => load.more(5, 10_000, 'load running')));
      exitCode = await allocation.signal('SIGTERM');
      stoppedAt = Date.now();
      await Promise.all(loads.map((load) => load.more(10, 20_000, 'load after the stop')));
    } finally {
      for (const load of loads) await load.stop();
    }
    const sent = loads.flatMap((load) => load.sent);
    observe('SIGTERM replica: statuses', Object.fromEntries(loads.map((load, index) => [index, load.statuses()])));
    expect(exitCode).to.equal(0);
    expect(sent.filter((one) => one.at >= stoppedAt).length).to.be.greaterThan(5);
    for (const one of sent) expect(one.status, one.text.slice(0, 200)).to.equal(200);
    counted += sent.length;
    await expectTotalsSettle(owner, { adRequests: counted }, 20_000);
  });
});
