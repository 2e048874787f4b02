import { ManualClock, testInfra, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import request from 'supertest';
import type { RunningTracking } from '../src/start';
import { activeCampaign, allocate, campaignSnapshot, gatewaySigned, startTracking, TestWorld, type Allocation, type CampaignSnapshot } from './support';

describe('tracking: allocation records and GET /api/workspace/stats', () => {
  const infra = testInfra();
  const clock = new ManualClock();
  const world = new TestWorld(infra);
  let snapshot: CampaignSnapshot;
  let tracking: RunningTracking;
  const handled = new Map<string, number>();

  const ADVERTISER = '7001';
  const PUBLISHER_OWNER = '7002';
  const STRANGER = '7003';
  const OTHER_ADVERTISER = '7004';
  const OTHER_PUBLISHER_OWNER = '7005';
  const ADMIN = '7009';
  const own = { campaignId: 11, publisherId: 21, campaignOwner: ADVERTISER, publisherOwner: PUBLISHER_OWNER };
  const other = { campaignId: 12, publisherId: 22, campaignOwner: OTHER_ADVERTISER, publisherOwner: OTHER_PUBLISHER_OWNER };

  before(async () => {
    await world.ready();
    snapshot = await campaignSnapshot([activeCampaign(11, ADVERTISER), activeCampaign(12, OTHER_ADVERTISER)]);
    tracking = await startTracking(infra, snapshot.url, {
      clock,
      hooks: {
        afterAllocationRecorded: async (allocationId) => {
          handled.set(allocationId, (handled.get(allocationId) ?? 0) + 1);
        },
      },
    });
    const ownKey = await world.approvedPublisher(own.publisherId, PUBLISHER_OWNER);
    const otherKey = await world.approvedPublisher(other.publisherId, OTHER_PUBLISHER_OWNER);

    clock.set('2026-03-01T12:00:00Z');
    const day1: Allocation[] = [allocate(infra, clock, own), allocate(infra, clock, own), allocate(infra, clock, own)];
    clock.set('2026-03-02T12:00:00Z');
    const day2 = allocate(infra, clock, own);
    const others = [allocate(infra, clock, other), allocate(infra, clock, other)];

    // The same allocation.created delivered twice, concurrently and once more later: counted once.
    const duplicated = await world.publishAllocation(day1[0]!.claims);
    await Promise.all([world.bus.publish(duplicated), world.bus.publish(duplicated)]);
    for (const allocation of [...day1.slice(1), day2, ...others]) await world.publishAllocation(allocation.claims);
    await waitFor(() => handled.get(day1[0]!.claims.allocationId) === 3, { message: 'duplicates not handled' });
    await waitFor(() => handled.size === 6, { message: 'allocations not handled' });

    const confirm = (key: string, token: string) =>
      request(tracking.url)
        .post('/api/network/delivery')
        .set(gatewaySigned(infra, 'POST', '/api/network/delivery'))
        .set('authorization', `Bearer ${key}`)
        .set('content-type', 'application/json')
        .send(JSON.stringify({ token }))
        .expect(200);
    const click = (allocation: Allocation) =>
      request(tracking.url).get(allocation.clickPath).set(gatewaySigned(infra, 'GET', allocation.clickPath)).redirects(0).expect(302);

    await confirm(ownKey, day2.deliveryToken);
    await confirm(ownKey, day2.deliveryToken);
    await click(day2);
    await click(day2);
    await confirm(otherKey, others[0]!.deliveryToken);
    clock.set('2026-03-01T12:10:00Z');
    await confirm(ownKey, day1[0]!.deliveryToken);
    await click(day1[0]!);
  });

  after(async () => {
    await tracking?.stop();
    await snapshot?.close();
    await world.close();
  });

  function stats(query: string, account?: { accountId: string; admin?: boolean }) {
    const path = `/api/workspace/stats${query}`;
    return request(tracking.url).get(path).set(gatewaySigned(infra, 'GET', path, account));
  }

  const ownTotals = {
    adRequests: 4,
    confirmedDeliveries: 2,
    clickedLinks: 2,
    days: [
      { date: '2026-03-01', adRequests: 3, confirmedDeliveries: 1, clickedLinks: 1 },
      { date: '2026-03-02', adRequests: 1, confirmedDeliveries: 1, clickedLinks: 1 },
    ],
  };

  it("shows a campaign owner the totals of its campaigns' records, each allocation counted once", async () => {
    const answer = await stats('', { accountId: ADVERTISER }).expect(200);
    expect(answer.body).to.deep.equal(ownTotals);
  });

  it("shows a publisher owner the totals of its platforms' records", async () => {
    const answer = await stats('', { accountId: PUBLISHER_OWNER }).expect(200);
    expect(answer.body).to.deep.equal(ownTotals);
  });

  it('shows an account with no campaigns or platforms nothing', async () => {
    const answer = await stats('', { accountId: STRANGER }).expect(200);
    expect(answer.body).to.deep.equal({ adRequests: 0, confirmedDeliveries: 0, clickedLinks: 0, days: [] });
    const filtered = await stats('?campaignId=11', { accountId: STRANGER }).expect(200);
    expect(filtered.body.adRequests).to.equal(0);
  });

  it('shows an administrator the whole network', async () => {
    const answer = await stats('', { accountId: ADMIN, admin: true }).expect(200);
    expect(answer.body).to.include({ adRequests: 6, confirmedDeliveries: 3, clickedLinks: 2 });
  });

  it('filters by campaign, publisher and UTC date range', async () => {
    const byCampaign = await stats('?campaignId=12', { accountId: ADMIN, admin: true }).expect(200);
    expect(byCampaign.body).to.deep.equal({
      adRequests: 2,
      confirmedDeliveries: 1,
      clickedLinks: 0,
      days: [{ date: '2026-03-02', adRequests: 2, confirmedDeliveries: 1, clickedLinks: 0 }],
    });
    const byPublisher = await stats('?publisherId=21', { accountId: ADMIN, admin: true }).expect(200);
    expect(byPublisher.body).to.deep.equal(ownTotals);
    const secondDay = await stats('?from=2026-03-02&to=2026-03-02', { accountId: ADVERTISER }).expect(200);
    expect(secondDay.body).to.deep.equal({ adRequests: 1, confirmedDeliveries: 1, clickedLinks: 1, days: [ownTotals.days[1]] });
    const firstDay = await stats('?to=2026-03-01', { accountId: PUBLISHER_OWNER }).expect(200);
    expect(firstDay.body.adRequests).to.equal(3);
  });

  it('refuses invalid filters with 400 and a code', async () => {
    const cases: Array<[string, string]> = [
      ['?campaignId=abc', 'invalid_campaign_id'],
      ['?campaignId=0', 'invalid_campaign_id'],
      ['?campaignId=1&campaignId=2', 'invalid_campaign_id'],
      ['?publisherId=-3', 'invalid_publisher_id'],
      ['?from=2026-02-30', 'invalid_date'],
      ['?to=yesterday', 'invalid_date'],
      ['?from=2026-03-02&to=2026-03-01', 'invalid_date_range'],
    ];
    for (const [query, code] of cases) {
      const answer = await stats(query, { accountId: ADVERTISER });
      expect(answer.status, query).to.equal(400);
      expect(answer.body.code, query).to.equal(code);
    }
  });

  it('refuses a call without a signed-in account with 401', async () => {
    const answer = await stats('');
    expect(answer.status).to.equal(401);
    expect(answer.body.code).to.equal('not_signed_in');
  });
});
