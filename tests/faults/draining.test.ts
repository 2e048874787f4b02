/**
 * A replica told to stop drains before it closes: one of two tracking replicas (a child
 * process beside an in-process one) gets SIGTERM under confirmation and click traffic through the gateway.
 * Its probes answer 503 `draining` at once, the gateway stops sending it requests within its probe
 * interval, and only then does it close: not one confirmation or click fails. Before, it closed at once
 * and the gateway, which retries only GET and HEAD on a refused connection, answered 502 for the POSTs
 * that reached it meanwhile (the soak test saw them).
 */
import { reservedPort, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { openLink, signedIn, type Browser, type PublisherServer } from '../e2e/support/clients';
import { activeCampaign, approvedPublisher } from '../e2e/support/scenario';
import { ADMIN_ID, startSystem, type System } from '../e2e/support/system';
import { ChildService } from './support/processes';
import { observe, timed, type AdAnswer, type Sent } from './support/traffic';

describe('a tracking replica sent SIGTERM drains first', function () {
  this.timeout(180_000);
  let system: System | undefined;
  let child: ChildService;

  before(async function () {
    this.timeout(150_000);
    const port = await reservedPort();
    system = await startSystem({ replicas: { tracking: 1 }, external: { tracking: [`http://127.0.0.1:${port}`] } });
    child = new ChildService('tracking', port, system.envFor('tracking', port), 'info');
    await child.start();
  });

  after(async function () {
    this.timeout(60_000);
    await child?.ensureStopped();
    await system?.stop();
  });

  it('answers every confirmation and click while one of two tracking replicas stops', async () => {
    if (!system) throw new Error('no system');
    const admin = await signedIn(system, ADMIN_ID);
    const advertiser: Browser = await signedIn(system, '9701');
    await activeCampaign(advertiser, admin, { language: 'et' });
    const owner = await signedIn(system, '9702');
    const servers: PublisherServer[] = [];
    for (let i = 0; i < 4; i += 1) servers.push((await approvedPublisher(system, owner, admin)).server);
    await waitFor(async () => (await servers[0]!.ad('et')).status === 200, { timeoutMs: 15_000, message: 'an ad in et' });
    const ads: AdAnswer[] = [];
    for (let i = 0; i < 40; i += 1) {
      const answer = await servers[i % 4]!.ad('et');
      expect(answer.status, answer.text).to.equal(200);
      ads.push(answer.body as unknown as AdAnswer);
    }

    // Confirmations and clicks of those ads, over and over (a repeat is 200 / 302 too), from 4 clients.
    const sent: Sent[] = [];
    let running = true;
    const traffic = Array.from({ length: 4 }, async (_, worker) => {
      for (let i = worker; running; i += 4) {
        const ad = ads[i % ads.length]!;
        sent.push(await timed(() => servers[i % 4]!.confirm(ad.delivery_token)));
        sent.push(await timed(() => openLink(ad.click_url)));
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
    });
    await waitFor(() => sent.length >= 40, { message: 'traffic flowing' });
    const exitCode = await child.signal('SIGTERM');
    const afterExit = sent.length;
    await waitFor(() => sent.length >= afterExit + 60, { timeoutMs: 30_000, message: 'traffic after the stop' });
    running = false;
    await Promise.all(traffic);

    const statuses = sent.reduce<Record<number, number>>((counts, one) => ({ ...counts, [one.status]: (counts[one.status] ?? 0) + 1 }), {});
    observe('draining tracking replica: statuses', statuses);
    expect(exitCode).to.equal(0);
    const failed = sent.filter((one) => one.status !== 200 && one.status !== 302);
    expect(failed.map((one) => `${one.status} ${one.text.slice(0, 120)}`)).to.deep.equal([]);
  });
});
