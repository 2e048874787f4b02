import { scrapeMetrics, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import request from 'supertest';
import { OWNER, startHarness, type Harness } from './support';

describe('publisher-identity /metrics after real traffic (MongoDB, Redis, RabbitMQ)', function () {
  this.timeout(30_000);
  let h: Harness;

  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h?.stop();
  });

  it('shows readiness as probed, its outbox drained once the publisher events are out, and no publish failure', async () => {
    await request(h.service.url).get('/readyz').expect(200);
    const created = await h.call('post', '/api/workspace/publishers', OWNER).send({ type: 'bot', link: '@Metrics_Probe_Bot' }).expect(201);
    await h.call('post', `/api/workspace/publishers/${created.body.id}/submit`, OWNER).expect(200);
    await waitFor(() => h.events.some((event) => event.type === 'publisher.submitted'), { message: 'publisher.submitted published' });

    const metrics = await waitFor(async () => {
      const scraped = await scrapeMetrics(h.service.url);
      return scraped.has('pilot_outbox_pending_entries') && scraped.value('pilot_outbox_pending_entries') === 0 ? scraped : null;
    });
    expect(metrics.value('pilot_ready', { service: 'publisher-identity' })).to.equal(1);
    expect(metrics.value('pilot_readiness_changes_total')).to.equal(0);
    expect(metrics.value('pilot_bus_publish_failures_total')).to.equal(0);
  });
});
