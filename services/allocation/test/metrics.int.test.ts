import { scrapeMetrics, testInfra, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import type { RunningAllocation } from '../src/start';
import { activeCampaign, bearer, campaignSnapshot, getAd, publisherId, startAllocation, TestWorld, untilReady, type CampaignSnapshot } from './support';

describe('allocation /metrics after real traffic (Redis, RabbitMQ)', function () {
  this.timeout(30_000);
  const infra = testInfra();
  const world = new TestWorld(infra);
  const german = activeCampaign({ language: 'de', ownerAccountId: '8101' });
  let snapshot: CampaignSnapshot;
  let service: RunningAllocation;

  before(async () => {
    await world.ready();
    snapshot = await campaignSnapshot(infra, [german]);
    service = await startAllocation(infra, snapshot.url);
    await untilReady(service);
  });

  after(async () => {
    await service?.stop();
    await snapshot?.close();
    await world.close();
  });

  it('counts ad answers by outcome and reason: filled, empty, refused (invalid_key, invalid_language), limited', async () => {
    const key = await world.publisher(publisherId(), '8201');
    await getAd(service, infra, '?language=de', bearer(key)).expect(200);
    await getAd(service, infra, '?language=ka', bearer(key)).expect(204);
    await getAd(service, infra, '?language=english', bearer(key)).expect(400);
    await getAd(service, infra, '?language=de', 'Bearer pk_live_unknown').expect(401);
    const busy = await world.publisher(publisherId(), '8202');
    for (let i = 0; i < 60; i += 1) await getAd(service, infra, '?language=ka', bearer(busy)).expect(204);
    await getAd(service, infra, '?language=ka', bearer(busy)).expect(429);

    const metrics = await scrapeMetrics(service.url);
    expect(metrics.value('pilot_ad_answers_total', { outcome: 'filled', reason: 'none', service: 'allocation' })).to.equal(1);
    expect(metrics.value('pilot_ad_answers_total', { outcome: 'empty' })).to.equal(61);
    expect(metrics.value('pilot_ad_answers_total', { outcome: 'refused', reason: 'invalid_language' })).to.equal(1);
    expect(metrics.value('pilot_ad_answers_total', { outcome: 'refused', reason: 'invalid_key' })).to.equal(1);
    expect(metrics.value('pilot_ad_answers_total', { outcome: 'limited', reason: 'rate_limited' })).to.equal(1);
  });

  it("shows the campaign cache's size, readiness and the age of its last change, and the events it consumed", async () => {
    const before = await scrapeMetrics(service.url);
    expect(before.value('pilot_campaign_cache_campaigns')).to.equal(1);
    expect(before.value('pilot_campaign_cache_ready')).to.equal(1);
    expect(before.has('pilot_campaign_cache_last_change_age_seconds')).to.equal(true);

    await world.activated(activeCampaign({ language: 'de', ownerAccountId: '8102' }));
    const after = await waitFor(async () => {
      const metrics = await scrapeMetrics(service.url);
      return metrics.value('pilot_campaign_cache_campaigns') === 2 ? metrics : null;
    });
    expect(after.value('pilot_bus_events_consumed_total', { event_type: 'campaign.activated', subscription: 'broadcast' })).to.equal(1);
    expect(after.value('pilot_campaign_cache_last_change_age_seconds')).to.be.within(0, 5);
    expect(after.value('pilot_bus_events_rejected_total')).to.equal(0);
  });
});
