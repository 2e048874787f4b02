import { TcpRelay, testInfra, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import request from 'supertest';
import { ADMIN, client, CREATIVE, listen, OWNER, startCampaign } from './support';

describe('campaign service: infrastructure faults', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    while (cleanup.length > 0) await cleanup.pop()?.();
  });

  it('answers 503 with Retry-After while MongoDB is unreachable and recovers by itself', async () => {
    const infra = testInfra();
    const proxy = new TcpRelay(infra.mongoUrl);
    await proxy.open();
    cleanup.push(() => proxy.cut());
    const service = await startCampaign(infra, {}, { MONGO_URL: proxy.url });
    cleanup.push(() => service.stop());
    const api = client(infra, service.url);
    expect((await api.post('/api/workspace/campaigns', OWNER, CREATIVE)).status).to.equal(201);

    await proxy.cut();
    const down = await api.get('/api/workspace/campaigns', OWNER);
    expect(down.status).to.equal(503);
    expect(down.headers['retry-after']).to.match(/^[0-9]+$/);
    expect(down.body.code).to.equal('service_unavailable');
    // Nothing of the infrastructure leaks; `type` is the site's page about the code, on PUBLIC_BASE_URL.
    expect(JSON.stringify({ ...down.body, type: undefined })).to.not.match(/127\.0\.0\.1|Mongo/);
    expect((await request(service.url).get('/readyz')).status).to.equal(503);

    await proxy.open();
    await waitFor(async () => (await api.get('/api/workspace/campaigns', OWNER)).status === 200, { timeoutMs: 20_000, intervalMs: 250 });
    expect((await request(service.url).get('/readyz')).status).to.equal(200);
  });

  it('answers a transition made while RabbitMQ is unreachable with 202 propagation pending, keeps it, and publishes its event once the broker is back', async () => {
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

    await proxy.cut();
    await waitFor(async () => (await request(service.url).get('/readyz')).status === 503, { message: 'readiness reports the broker' });
    const submitted = await api.post(`/api/workspace/campaigns/${body.id}/submit`, OWNER);
    expect(submitted.status, 'stored, not yet in effect').to.equal(202);
    expect(submitted.body).to.include({ status: 'submitted', propagation: 'pending' });

    await proxy.open();
    await waitFor(() => events.length === 1, { timeoutMs: 20_000, message: 'the event left in the outbox is published' });
    expect(events[0]).to.include({ type: 'campaign.submitted', aggregateId: String(body.id), aggregateVersion: 2 });
    // The next transition is the marker: a duplicate of the first would arrive before it.
    const approved = await api.post(`/api/workspace/campaigns/${body.id}/approve`, ADMIN);
    expect(approved.status).to.equal(200);
    expect(approved.body.propagation).to.equal('done');
    await waitFor(() => events.length >= 2);
    expect(events.map((event) => event.type)).to.deep.equal(['campaign.submitted', 'campaign.approved']);
  });
});
