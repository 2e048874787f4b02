import { scrapeMetrics, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { ADMIN, startHarness, type Harness } from './support';

describe('placement /metrics after real traffic (MongoDB, Redis, RabbitMQ)', function () {
  this.timeout(30_000);
  let h: Harness;

  before(async () => {
    // No folder of its own: the counted impression stays pending until the test folds it.
    h = await startHarness({ COUNT_FOLD_INTERVAL_MS: '0' });
  });
  after(async () => {
    await h?.stop();
  });

  it('shows its outbox drained after a change is published, and an impression waiting to be folded until it is', async () => {
    const put = await h.call('put', '/api/workspace/placements/home-feature', ADMIN).send({
      title: 'Meet the pilot',
      buttonText: 'Open',
      destinationUrl: 'https://example.com/pilot',
      imageUrl: null,
      status: 'active',
    });
    expect(put.status, JSON.stringify(put.body)).to.equal(200);
    await waitFor(() => h.events.some((event) => event.type === 'placement.changed'), { message: 'placement.changed published' });
    const reported = await h.call('post', '/api/site/placements/home-feature/impressions', null, '198.51.100.7').send({ placementId: put.body.placement.placementId });
    expect(reported.status, JSON.stringify(reported.body)).to.be.oneOf([202, 204]);

    const before = await scrapeMetrics(h.service.url);
    expect(before.has('pilot_outbox_pending_entries', { service: 'placement' })).to.equal(true);
    await waitFor(async () => (await scrapeMetrics(h.service.url)).value('pilot_outbox_pending_entries') === 0, { message: 'outbox drained' });
    expect(before.value('pilot_bus_publish_failures_total')).to.equal(0);
    // The harness's clock stands at 2026-06-01T12:00Z, before the wall clock: the impression's counting
    // interval is already closed, and it waits for the folder.
    expect(before.value('pilot_counting_lag_seconds')).to.be.above(0);

    await h.service.folder.foldNow(true);
    const folded = await scrapeMetrics(h.service.url);
    expect(folded.value('pilot_counting_lag_seconds')).to.equal(0);
    expect(folded.value('pilot_counting_pending_folds')).to.equal(0);
  });
});
