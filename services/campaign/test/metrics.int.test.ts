import { scrapeMetrics, TcpRelay, testInfra, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import request from 'supertest';
import { client, CREATIVE, listen, OWNER, startCampaign } from './support';

describe('campaign /metrics: the outbox backlog and publish failures (RabbitMQ cut and back, MongoDB)', function () {
  this.timeout(40_000);
  const cleanup: Array<() => Promise<void>> = [];
  after(async () => {
    while (cleanup.length > 0) await cleanup.pop()?.();
  });

  it('shows entries pending and publish failures while the broker is away, and the backlog drained once it is back', async () => {
    const infra = testInfra();
    const { events, bus } = await listen(infra);
    cleanup.push(() => bus.close());
    const proxy = new TcpRelay(infra.amqpUrl);
    await proxy.open();
    cleanup.push(() => proxy.cut());
    const service = await startCampaign(infra, {}, { AMQP_URL: proxy.url });
    cleanup.push(() => service.stop());
    const api = client(infra, service.url);
    const { body } = await api.post('/api/workspace/campaigns', OWNER, CREATIVE);

    // The create is finished right after its answer.
    await waitFor(async () => (await scrapeMetrics(service.url)).value('pilot_outbox_pending_entries', { service: 'campaign' }) === 0, { message: 'the create finished' });
    expect((await scrapeMetrics(service.url)).has('pilot_outbox_pending_entries')).to.equal(true);

    await proxy.cut();
    await waitFor(async () => (await request(service.url).get('/readyz')).status === 503, { message: 'readiness reports the broker' });
    expect((await api.post(`/api/workspace/campaigns/${body.id}/submit`, OWNER)).status).to.equal(202);
    const away = await scrapeMetrics(service.url);
    expect(away.value('pilot_outbox_pending_entries')).to.equal(1);
    expect(away.value('pilot_bus_publish_failures_total', { event_type: 'campaign.submitted' })).to.be.at.least(1);

    await proxy.open();
    await waitFor(() => events.length === 1, { timeoutMs: 20_000, message: 'the pending event is published' });
    await waitFor(async () => (await scrapeMetrics(service.url)).value('pilot_outbox_pending_entries') === 0, { message: 'backlog drained' });
  });
});
