import { ManualClock, testInfra, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import request from 'supertest';
import type { RunningTracking } from '../src/start';
import { activeCampaign, allocate, campaignSnapshot, gatewaySigned, signedPost, startTracking, TestWorld, type Allocation, type CampaignSnapshot } from './support';

for (const folded of [false, true]) {
  describe(`tracking: GET /api/workspace/stats with the counts ${folded ? 'folded into MongoDB' : 'still in Redis'}`, () => {
    const infra = testInfra();
    const clock = new ManualClock();
    const world = new TestWorld(infra);
    let snapshot: CampaignSnapshot;
    let tracking: RunningTracking;

    const ADVERTISER = '7001';
    const PUBLISHER_OWNER = '7002';
    const STRANGER = '7003';
    const OTHER_ADVERTISER = '7004';
    const OTHER_PUBLISHER_OWNER = '7005';
    const ADMIN = '7009';
    const own = { campaignId: 11, publisherId: 21, campaignOwner: ADVERTISER, publisherOwner: PUBLISHER_OWNER };
    const other = { campaignId: 12, publisherId: 22, campaignOwner: OTHER_ADVERTISER, publisherOwner: OTHER_PUBLISHER_OWNER };
    // One campaign on the platforms of two other accounts: each owner sees only its part.
    const SHARED_ADVERTISER = '7011';
    const FIRST_HOST = '7012';
    const SECOND_HOST = '7013';
    const onFirst = { campaignId: 13, publisherId: 23, campaignOwner: SHARED_ADVERTISER, publisherOwner: FIRST_HOST };
    const onSecond = { campaignId: 13, publisherId: 24, campaignOwner: SHARED_ADVERTISER, publisherOwner: SECOND_HOST };

    before(async () => {
      await world.ready();
      snapshot = await campaignSnapshot([activeCampaign(11, ADVERTISER), activeCampaign(12, OTHER_ADVERTISER), activeCampaign(13, SHARED_ADVERTISER)]);
      tracking = await startTracking(infra, snapshot.url, { clock }, { COUNT_FOLD_INTERVAL_MS: '0' });
      await waitFor(async () => (await fetch(`${tracking.url}/readyz`)).ok, { message: 'tracking ready' });
      const ownKey = await world.approvedPublisher(own.publisherId, PUBLISHER_OWNER);
      const otherKey = await world.approvedPublisher(other.publisherId, OTHER_PUBLISHER_OWNER);

      clock.set('2026-03-01T12:00:00Z');
      const day1: Allocation[] = [allocate(infra, clock, own), allocate(infra, clock, own), allocate(infra, clock, own)];
      clock.set('2026-03-02T12:00:00Z');
      const day2 = allocate(infra, clock, own);
      const others = [allocate(infra, clock, other), allocate(infra, clock, other)];

      const shared = [allocate(infra, clock, onFirst), allocate(infra, clock, onFirst), allocate(infra, clock, onSecond)];
      for (const allocation of [...day1, day2, ...others, ...shared]) await world.countAllocation(allocation.claims);
      const firstHostKey = await world.approvedPublisher(onFirst.publisherId, FIRST_HOST);

      const confirm = (key: string, token: string) =>
        signedPost(infra, tracking.url, '/api/network/delivery')
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
      await confirm(firstHostKey, shared[0]!.deliveryToken);
      clock.set('2026-03-01T12:10:00Z');
      await confirm(ownKey, day1[0]!.deliveryToken);
      await click(day1[0]!);
      if (folded) {
        await tracking.folder.foldNow(true);
        expect((await world.unfolded.read(['all'])).parts.filter((part) => part.fold === 0), 'counts left unclaimed').to.deep.equal([]);
      }
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

    // No ad request of these tests answers 204: unfilledAdRequests stays 0 beside the totals.
    const ownTotals = {
      adRequests: 4,
      confirmedDeliveries: 2,
      clickedLinks: 2,
      unfilledAdRequests: 0,
      days: [
        { date: '2026-03-01', adRequests: 3, confirmedDeliveries: 1, clickedLinks: 1, unfilledAdRequests: 0 },
        { date: '2026-03-02', adRequests: 1, confirmedDeliveries: 1, clickedLinks: 1, unfilledAdRequests: 0 },
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
      expect(answer.body).to.deep.equal({ adRequests: 0, confirmedDeliveries: 0, clickedLinks: 0, unfilledAdRequests: 0, days: [] });
      const filtered = await stats('?campaignId=11', { accountId: STRANGER }).expect(200);
      expect(filtered.body.adRequests).to.equal(0);
    });

    it('shows an administrator the whole network', async () => {
      const answer = await stats('', { accountId: ADMIN, admin: true }).expect(200);
      expect(answer.body).to.include({ adRequests: 9, confirmedDeliveries: 4, clickedLinks: 2 });
    });

    it('filters by campaign, publisher and UTC date range', async () => {
      const byCampaign = await stats('?campaignId=12', { accountId: ADMIN, admin: true }).expect(200);
      expect(byCampaign.body).to.deep.equal({
        adRequests: 2,
        confirmedDeliveries: 1,
        clickedLinks: 0,
        unfilledAdRequests: 0,
        days: [{ date: '2026-03-02', adRequests: 2, confirmedDeliveries: 1, clickedLinks: 0, unfilledAdRequests: 0 }],
      });
      const byPublisher = await stats('?publisherId=21', { accountId: ADMIN, admin: true }).expect(200);
      expect(byPublisher.body).to.deep.equal(ownTotals);
      const secondDay = await stats('?from=2026-03-02&to=2026-03-02', { accountId: ADVERTISER }).expect(200);
      expect(secondDay.body).to.deep.equal({ adRequests: 1, confirmedDeliveries: 1, clickedLinks: 1, unfilledAdRequests: 0, days: [ownTotals.days[1]] });
      const firstDay = await stats('?to=2026-03-01', { accountId: PUBLISHER_OWNER }).expect(200);
      expect(firstDay.body.adRequests).to.equal(3);
    });

    it("shows each account only its part of a campaign running on other accounts' platforms, for every filter", async () => {
      const figures = async (query: string, accountId: string) => {
        const body = (await stats(query, { accountId }).expect(200)).body;
        return [body.adRequests, body.confirmedDeliveries, body.clickedLinks];
      };
      expect(await figures('?campaignId=13', SHARED_ADVERTISER)).to.deep.equal([3, 1, 0]);
      expect(await figures('?campaignId=13', FIRST_HOST)).to.deep.equal([2, 1, 0]);
      expect(await figures('?campaignId=13', SECOND_HOST)).to.deep.equal([1, 0, 0]);
      expect(await figures('?publisherId=23', SHARED_ADVERTISER)).to.deep.equal([2, 1, 0]);
      expect(await figures('?publisherId=23', FIRST_HOST)).to.deep.equal([2, 1, 0]);
      expect(await figures('?publisherId=24', FIRST_HOST)).to.deep.equal([0, 0, 0]);
      expect(await figures('?campaignId=13&publisherId=24', SHARED_ADVERTISER)).to.deep.equal([1, 0, 0]);
      expect(await figures('?campaignId=13&publisherId=24', SECOND_HOST)).to.deep.equal([1, 0, 0]);
      expect(await figures('?campaignId=13&publisherId=24', FIRST_HOST)).to.deep.equal([0, 0, 0]);
      expect(await figures('?campaignId=13', STRANGER)).to.deep.equal([0, 0, 0]);
      expect(await figures('?campaignId=11', SHARED_ADVERTISER)).to.deep.equal([0, 0, 0]);
      expect(await figures('', FIRST_HOST)).to.deep.equal([2, 1, 0]);
      const asAdmin = (await stats('?campaignId=13&publisherId=23', { accountId: ADMIN, admin: true }).expect(200)).body;
      expect([asAdmin.adRequests, asAdmin.confirmedDeliveries, asAdmin.clickedLinks]).to.deep.equal([2, 1, 0]);
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
}
