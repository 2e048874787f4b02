/**
 * Two replicas each of allocation and tracking behind one gateway: the rate limit is shared, every
 * replica's cache drops a paused campaign, every replica refuses a rotated key at once, and the totals
 * count each allocation, confirmation and click exactly once whichever replica handled it.
 */
import { signedHeaders } from '@pilot/platform';
import { waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { signedIn, type Browser } from './support/clients';
import { activeCampaign, approvedPublisher } from './support/scenario';
import { ADMIN_ID, startSystem, type Replica, type System } from './support/system';

interface Totals {
  adRequests: number;
  confirmedDeliveries: number;
  clickedLinks: number;
}

describe('two replicas of allocation and tracking', function () {
  this.timeout(180_000);
  let system: System;
  let admin: Browser;
  let advertiser: Browser;
  let owner: Browser;

  /** A network call straight to one replica, signed as the gateway would forward it. */
  function direct(replica: Replica, method: 'GET' | 'POST', path: string, key: string, body?: unknown): Promise<Response> {
    const url = replica.running?.url;
    if (!url) throw new Error(`${replica.service}#${replica.index} is not running`);
    const sent = body ? JSON.stringify(body) : undefined;
    return fetch(`${url}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        ...signedHeaders(system.infra.internalSecret, { method, url: path, body: sent ?? null }),
        authorization: `Bearer ${key}`,
        ...(body ? { 'content-type': 'application/json' } : {}),
      },
      body: sent,
    });
  }

  before(async () => {
    system = await startSystem({ replicas: { allocation: 2, tracking: 2 } });
    admin = await signedIn(system, ADMIN_ID);
    advertiser = await signedIn(system, '6001');
    owner = await signedIn(system, '6002');
  });

  after(async () => {
    await system?.stop();
  });

  it('shares the 60 per minute limit of a publisher across replicas', async () => {
    await activeCampaign(advertiser, admin);
    const { server } = await approvedPublisher(system, owner, admin);
    let spent = 0;
    await waitFor(async () => {
      spent += 1;
      return (await server.ad()).status === 200;
    }, { message: 'the campaign to be selectable' });
    const statuses: number[] = [];
    for (let i = spent; i < 61; i += 1) statuses.push((await server.ad()).status);
    // Requests 1..60 of the minute are answered (whichever replica took them); the 61st is refused.
    expect(statuses.slice(0, -1).every((status) => status === 200)).to.equal(true);
    expect(statuses.at(-1)).to.equal(429);
    const [first, second] = system.replicasOf('allocation') as [Replica, Replica];
    expect((await direct(first, 'GET', '/api/network/ad', server.key)).status).to.equal(429);
    expect((await direct(second, 'GET', '/api/network/ad', server.key)).status).to.equal(429);
  });

  it('drops a paused campaign from the cache of every replica', async () => {
    const campaign = await activeCampaign(advertiser, admin, { language: 'ru' });
    const { server } = await approvedPublisher(system, owner, admin);
    const replicas = system.replicasOf('allocation');
    for (const replica of replicas) {
      await waitFor(async () => (await direct(replica, 'GET', '/api/network/ad?language=ru', server.key)).status === 200, {
        message: `replica ${replica.index} to select the campaign`,
      });
    }
    expect((await advertiser.post(`/api/workspace/campaigns/${campaign.id}/pause`)).status).to.equal(200);
    for (const replica of replicas) {
      await waitFor(async () => (await direct(replica, 'GET', '/api/network/ad?language=ru', server.key)).status === 204, {
        timeoutMs: 5000,
        message: `replica ${replica.index} to drop the paused campaign`,
      });
    }
  });

  it('refuses a rotated key on the very next request at every replica', async () => {
    const { publisher, server } = await approvedPublisher(system, owner, admin);
    const rotated = await owner.post<{ key: string }>(`/api/workspace/publishers/${publisher.id}/keys`);
    expect(rotated.status).to.equal(201);
    for (const replica of system.replicasOf('allocation')) {
      expect((await direct(replica, 'GET', '/api/network/ad', server.key)).status).to.equal(401);
      expect((await direct(replica, 'GET', '/api/network/ad', rotated.body.key)).status).to.be.oneOf([200, 204]);
    }
  });

  it('counts every allocation, confirmation and click exactly once across replicas', async () => {
    const countingAdvertiser = await signedIn(system, '6101');
    const countingOwner = await signedIn(system, '6102');
    await activeCampaign(countingAdvertiser, admin, { language: 'ar' });
    const { server } = await approvedPublisher(system, countingOwner, admin);
    const allocation = system.replicasOf('allocation');
    const tracking = system.replicasOf('tracking');
    const ads: { delivery_token: string; click_url: string }[] = [];
    await waitFor(async () => (await server.ad('ar')).status === 200, { message: 'the campaign to be selectable' });
    for (let i = 0; i < 20; i += 1) {
      const replica = allocation[i % allocation.length] as Replica;
      const response = await direct(replica, 'GET', '/api/network/ad?language=ar', server.key);
      expect(response.status).to.equal(200);
      ads.push((await response.json()) as { delivery_token: string; click_url: string });
    }
    // Confirm 10 of them twice, each time at the other tracking replica; click 5 of them at both.
    for (const [index, ad] of ads.slice(0, 10).entries()) {
      for (const replica of [tracking[index % 2], tracking[(index + 1) % 2]] as Replica[]) {
        expect((await direct(replica, 'POST', '/api/network/delivery', server.key, { token: ad.delivery_token })).status).to.equal(200);
      }
    }
    for (const ad of ads.slice(0, 5)) {
      const path = new URL(ad.click_url).pathname;
      for (const replica of tracking) expect((await direct(replica, 'GET', path, server.key)).status).to.equal(302);
    }
    const expected = { adRequests: 21, confirmedDeliveries: 10, clickedLinks: 5 };
    const totals = await waitFor(
      async () => {
        const answer = await countingOwner.get<Totals>('/api/workspace/stats');
        return answer.body.adRequests >= expected.adRequests ? answer.body : null;
      },
      { message: 'every allocation to be counted' },
    );
    expect(totals).to.include(expected);
    // Redelivered or late events must not add anything afterwards. Their absence announces nothing to wait
    // for, so this is a bounded window: half a second more, then the totals are read again.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await countingOwner.get<Totals>('/api/workspace/stats')).body).to.include(expected);
  });
});
