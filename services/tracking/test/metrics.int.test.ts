import { scrapeMetrics, testInfra, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import request from 'supertest';
import type { RunningTracking } from '../src/start';
import { activeCampaign, allocate, campaignSnapshot, gatewaySigned, signedPost, startTracking, TestWorld, type CampaignSnapshot } from './support';

describe('tracking /metrics after real traffic (Redis, RabbitMQ, MongoDB)', function () {
  this.timeout(30_000);
  const infra = testInfra();
  const world = new TestWorld(infra);
  let snapshot: CampaignSnapshot;
  let tracking: RunningTracking;
  const campaign = activeCampaign(9101, '9201');
  const ids = { campaignId: campaign.campaignId, publisherId: 9301, campaignOwner: '9201', publisherOwner: '9202' };
  let key: string;

  before(async () => {
    await world.ready();
    snapshot = await campaignSnapshot([campaign]);
    // Short counting intervals and no folder of its own: the test folds by hand and watches the lag.
    tracking = await startTracking(infra, snapshot.url, {}, { COUNT_INTERVAL_MS: '300', COUNT_FOLD_INTERVAL_MS: '0' });
    key = await world.approvedPublisher(ids.publisherId, ids.publisherOwner);
    await waitFor(async () => (await fetch(`${tracking.url}/readyz`)).ok, { message: 'tracking ready' });
  });

  after(async () => {
    await tracking?.stop();
    await snapshot?.close();
    await world.close();
  });

  const deliver = (token: string, apiKey = key) =>
    signedPost(infra, tracking.url, '/api/network/delivery')
      .set('content-type', 'application/json')
      .set('authorization', `Bearer ${apiKey}`)
      .send(JSON.stringify({ token }));
  const click = (path: string, method: 'GET' | 'HEAD' = 'GET', userAgent = 'Mozilla/5.0 Firefox/128.0') =>
    (method === 'GET' ? request(tracking.url).get(path) : request(tracking.url).head(path))
      .set(gatewaySigned(infra, method, path))
      .set('user-agent', userAgent)
      .redirects(0);

  it('counts confirmations (first, repeat, refused by reason) and clicks (first, repeat, filtered by reason, refused)', async () => {
    const allocation = allocate(infra, new Date(), ids);
    await deliver(allocation.deliveryToken).expect(200);
    await deliver(allocation.deliveryToken).expect(200);
    await deliver('d'.repeat(104)).expect(404);
    await deliver(allocation.deliveryToken, 'pk_live_unknown').expect(401);
    await click(allocation.clickPath).expect(302);
    await click(allocation.clickPath).expect(302);
    await click(allocation.clickPath, 'HEAD').expect(302);
    await click(allocation.clickPath, 'GET', 'TelegramBot (like TwitterBot)').expect(302);
    await click(`/api/network/click/${'x'.repeat(104)}`).expect(404);

    const metrics = await scrapeMetrics(tracking.url);
    const confirmations = (labels: Record<string, string>) => metrics.value('pilot_confirmations_total', { service: 'tracking', ...labels });
    expect(confirmations({ outcome: 'first', reason: 'none' })).to.equal(1);
    expect(confirmations({ outcome: 'repeat', reason: 'none' })).to.equal(1);
    expect(confirmations({ outcome: 'refused', reason: 'token_not_found' })).to.equal(1);
    expect(confirmations({ outcome: 'refused', reason: 'invalid_key' })).to.equal(1);
    const clicks = (labels: Record<string, string>) => metrics.value('pilot_clicks_total', labels);
    expect(clicks({ outcome: 'first', reason: 'none' })).to.equal(1);
    expect(clicks({ outcome: 'repeat', reason: 'none' })).to.equal(1);
    expect(clicks({ outcome: 'filtered', reason: 'head' })).to.equal(1);
    expect(clicks({ outcome: 'filtered', reason: 'preview_agent' })).to.equal(1);
    expect(clicks({ outcome: 'refused', reason: 'token_not_found' })).to.equal(1);
    expect(metrics.value('pilot_campaign_cache_campaigns')).to.equal(1);
  });

  it('shows the counting lag growing while nothing folds, and back to 0 once folded', async () => {
    await deliver(allocate(infra, new Date(), ids).deliveryToken).expect(200);
    const behind = await waitFor(async () => {
      const metrics = await scrapeMetrics(tracking.url);
      return metrics.value('pilot_counting_lag_seconds') >= 0.5 ? metrics : null;
    });
    expect(behind.value('pilot_counting_lag_seconds')).to.be.below(10);
    await tracking.folder.foldNow(true);
    const folded = await scrapeMetrics(tracking.url);
    expect(folded.value('pilot_counting_lag_seconds')).to.equal(0);
    expect(folded.value('pilot_counting_pending_folds')).to.equal(0);
  });
});
