import { KeyUseRecorder } from '@pilot/publisher-keys';
import { expect } from 'chai';
import { ADMIN, OWNER, startHarness, type Harness } from './support';

describe('publisher-identity: a platform\'s keys last used, as allocation notes them', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.stop();
  });

  it('shows on the platform the last noted use of its current live and test keys, not one of a replaced key', async () => {
    const created = await h.call('post', '/api/workspace/publishers', OWNER).send({ type: 'channel', link: 'https://t.me/key_uses_channel' }).expect(201);
    const id = created.body.id as number;
    await h.call('post', `/api/workspace/publishers/${id}/submit`, OWNER).expect(200);
    await h.call('post', `/api/workspace/publishers/${id}/approve`, ADMIN).expect(200);
    await h.call('post', `/api/workspace/publishers/${id}/keys`, OWNER).expect(201);
    const fresh = await h.call('get', `/api/workspace/publishers/${id}`, OWNER).expect(200);
    expect(fresh.body).to.include({ keyLastUsedAt: null, testKeyLastUsedAt: null });

    // Allocation's side, on the same Redis and prefix: a use of the live key after it was made.
    const used = new Date(Date.parse(fresh.body.keyCreatedAt as string) + 90_000);
    new KeyUseRecorder(h.redis, h.infra.redisPrefix).touch(id, 'live', used);
    await h.redis.ping();
    const after = await h.call('get', `/api/workspace/publishers/${id}`, OWNER).expect(200);
    expect(after.body).to.include({ keyLastUsedAt: used.toISOString(), testKeyLastUsedAt: null });
    const asAdmin = await h.call('get', `/api/workspace/publishers/${id}`, ADMIN).expect(200);
    expect(asAdmin.body.keyLastUsedAt).to.equal(used.toISOString());

    // A rotation later than that use: the new key has not been used.
    h.clock.advance(120_000);
    await h.call('post', `/api/workspace/publishers/${id}/keys`, OWNER).expect(201);
    const rotated = await h.call('get', `/api/workspace/publishers/${id}`, OWNER).expect(200);
    expect(rotated.body.keyLastUsedAt).to.equal(null);
    // Lists do not read Redis per record: the field is absent there.
    const list = await h.call('get', '/api/workspace/publishers', OWNER).expect(200);
    expect((list.body.items as Array<Record<string, unknown>>)[0]).to.not.have.property('keyLastUsedAt');
  });
});
