import { isWellFormedApiKey, kindOfApiKey } from '@pilot/publisher-keys';
import { waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { ADMIN, OWNER, STRANGER, startHarness, type Harness, type Who } from './support';

describe('publisher-identity: publisher platforms', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(async () => {
    await h.stop();
  });

  let serial = 0;
  async function register(who: Who = OWNER, type: 'bot' | 'channel' = 'channel'): Promise<number> {
    serial += 1;
    const link = type === 'bot' ? `@pilot_test_${serial}_bot` : `https://t.me/pilot_channel_${serial}`;
    const response = await h.call('post', '/api/workspace/publishers', who).send({ type, link }).expect(201);
    return response.body.id as number;
  }

  function act(id: number, action: string, who: Who, body?: object) {
    const test = h.call('post', `/api/workspace/publishers/${id}/${action}`, who);
    return body ? test.send(body) : test;
  }

  async function approved(who: Who = OWNER): Promise<number> {
    const id = await register(who);
    await act(id, 'submit', who).expect(200);
    await act(id, 'approve', ADMIN).expect(200);
    return id;
  }

  async function newKey(id: number, who: Who = OWNER): Promise<string> {
    const response = await h.call('post', `/api/workspace/publishers/${id}/keys`, who).expect(201);
    return response.body.key as string;
  }

  it('registers a draft with the link normalized to https://t.me/<username>', async () => {
    const response = await h.call('post', '/api/workspace/publishers', OWNER).send({ type: 'bot', link: '@Weather_Helper_Bot' }).expect(201);
    expect(response.body).to.include({ type: 'bot', link: 'https://t.me/Weather_Helper_Bot', status: 'draft', ownerAccountId: OWNER.accountId, keyCreatedAt: null });
    expect(response.body.id).to.be.a('number').and.to.be.above(0);
    expect(response.body).to.have.all.keys(
      'id',
      'type',
      'link',
      'status',
      'ownerAccountId',
      'keyCreatedAt',
      'testKeyCreatedAt',
      'previousKeyExpiresAt',
      'rejectionReason',
      'pauseReason',
      'apiBaseUrl',
      'statusChangedAt',
      'createdAt',
      'updatedAt',
    );
    expect(response.body).to.include({ testKeyCreatedAt: null, rejectionReason: null });
    expect(response.body.apiBaseUrl).to.match(/^https?:\/\/[^/]+.*[^/]$/);
    const channel = await h.call('post', '/api/workspace/publishers', OWNER).send({ type: 'channel', link: 'https://t.me/daily_news/' }).expect(201);
    expect(channel.body.link).to.equal('https://t.me/daily_news');
  });

  it('refuses invalid input with 422 naming every failing field', async () => {
    const both = await h.call('post', '/api/workspace/publishers', OWNER).send({ type: 'video', link: 'https://example.com/x' }).expect(422);
    expect(both.body.code).to.equal('validation_failed');
    expect(both.body.errors.map((e: { field: string }) => e.field).sort()).to.deep.equal(['link', 'type']);
    const bot = await h.call('post', '/api/workspace/publishers', OWNER).send({ type: 'bot', link: '@weather_channel' }).expect(422);
    expect(bot.body.errors).to.deep.include({ field: 'link', code: 'bot_username_required', message: "a bot's username ends in bot" });
    const short = await h.call('post', '/api/workspace/publishers', OWNER).send({ type: 'channel', link: '@abc' }).expect(422);
    expect(short.body.errors[0]).to.include({ field: 'link', code: 'invalid_username' });
    const token = await h
      .call('post', '/api/workspace/publishers', OWNER)
      .send({ type: 'bot', link: '@weather_bot', botToken: '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw' })
      .expect(422);
    expect(token.body.errors).to.deep.include({ field: 'botToken', code: 'bot_token_refused', message: 'a bot token is never requested or accepted' });
    const missing = await h.call('post', '/api/workspace/publishers', OWNER).send({}).expect(422);
    expect(missing.body.errors.map((e: { code: string }) => e.code)).to.deep.equal(['required', 'required']);
    await h.call('post', '/api/workspace/publishers', OWNER).set('content-type', 'text/plain').send('x').expect(422);
  });

  it('refuses a workspace call without a signed-in account with 401', async () => {
    await h.call('post', '/api/workspace/publishers', null).send({ type: 'bot', link: '@weather_bot' }).expect(401);
    await h.call('get', '/api/workspace/publishers', null).expect(401);
  });

  it('hands out ids unique across replicas', async () => {
    const other = await h.replica();
    const request = (await import('supertest')).default;
    const { signedHeaders } = await import('@pilot/platform');
    const post = (url: string, n: number) => {
      const body = { type: 'channel', link: `@replica_test_${n}` };
      return request(url)
        .post('/api/workspace/publishers')
        .set(signedHeaders(h.infra.internalSecret, { method: 'POST', url: '/api/workspace/publishers', accountId: OWNER.accountId, body: JSON.stringify(body) }))
        .send(body);
    };
    const responses = await Promise.all(Array.from({ length: 12 }, (_, n) => post(n % 2 === 0 ? h.service.url : other.url, n)));
    const ids = responses.map((response) => {
      expect(response.status).to.equal(201);
      return response.body.id as number;
    });
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('moves through every transition of the state machine and refuses the others with 409', async () => {
    const id = await register();
    const conflict = await act(id, 'approve', ADMIN).expect(409);
    expect(conflict.body.code).to.equal('invalid_transition');
    await act(id, 'pause', ADMIN).expect(409);
    await act(id, 'reject', ADMIN, { reason: 'not yet' }).expect(409);
    expect((await act(id, 'submit', OWNER).expect(200)).body.status).to.equal('submitted');
    await act(id, 'submit', OWNER).expect(409);
    expect((await act(id, 'reject', ADMIN, { reason: 'ownership not shown' }).expect(200)).body.status).to.equal('rejected');
    expect((await act(id, 'submit', OWNER).expect(200)).body.status).to.equal('submitted');
    expect((await act(id, 'approve', ADMIN).expect(200)).body.status).to.equal('approved');
    await act(id, 'approve', ADMIN).expect(409);
    await act(id, 'submit', OWNER).expect(409);
    expect((await act(id, 'pause', ADMIN).expect(200)).body.status).to.equal('paused');
    await act(id, 'pause', ADMIN).expect(409);
    expect((await act(id, 'approve', ADMIN).expect(200)).body.status).to.equal('approved');
    expect((await act(id, 'pause', ADMIN).expect(200)).body.status).to.equal('paused');
    expect((await act(id, 'reject', ADMIN, { reason: 'policy' }).expect(200)).body.status).to.equal('rejected');
    const rejectedApproved = await approved();
    expect((await act(rejectedApproved, 'reject', ADMIN, { reason: 'policy' }).expect(200)).body.status).to.equal('rejected');
  });

  it('requires a reason of 1 to 500 characters to reject', async () => {
    const id = await register();
    await act(id, 'submit', OWNER).expect(200);
    expect((await act(id, 'reject', ADMIN, {}).expect(422)).body.errors[0]).to.include({ field: 'reason', code: 'required' });
    expect((await act(id, 'reject', ADMIN, { reason: '' }).expect(422)).body.errors[0]).to.include({ code: 'too_short' });
    expect((await act(id, 'reject', ADMIN, { reason: 'x'.repeat(501) }).expect(422)).body.errors[0]).to.include({ code: 'too_long' });
  });

  it('takes an optional reason on pause, recorded in the audit the owner reads and answered as pauseReason while paused', async () => {
    const id = await approved();
    for (const body of [{ reason: '' }, { reason: 'x'.repeat(501) }, { reason: 3 }, { reason: 'ok', other: true }]) {
      await act(id, 'pause', ADMIN, body).expect(422);
    }
    expect((await h.call('get', `/api/workspace/publishers/${id}`, OWNER).expect(200)).body.status, 'a refused pause changes nothing').to.equal('approved');
    expect((await h.call('get', `/api/workspace/publishers/${id}`, OWNER).expect(200)).body.pauseReason).to.equal(null);
    const paused = await act(id, 'pause', ADMIN, { reason: 'Ads were sent without the Sponsored label.' }).expect(200);
    expect(paused.body.pauseReason).to.equal('Ads were sent without the Sponsored label.');
    expect((await h.call('get', `/api/workspace/publishers/${id}`, OWNER).expect(200)).body.pauseReason).to.equal('Ads were sent without the Sponsored label.');
    const listed = await h.call('get', '/api/workspace/publishers', OWNER).expect(200);
    expect(listed.body.items.find((item: { id: number }) => item.id === id).pauseReason).to.equal('Ads were sent without the Sponsored label.');
    expect((await act(id, 'approve', ADMIN).expect(200)).body.pauseReason, 'gone with the pause').to.equal(null);
    expect((await act(id, 'pause', ADMIN).expect(200)).body.pauseReason, 'a pause without a reason').to.equal(null);
    const audit = await h.call('get', `/internal/audit?entity=publisher&entityId=${id}`, OWNER).expect(200);
    const pauses = (audit.body.items as Array<{ action: string; reason: string | null }>).filter((item) => item.action === 'paused');
    expect(pauses.map((item) => item.reason)).to.deep.equal([null, 'Ads were sent without the Sponsored label.']);
  });

  it('lets only administrators review and only owners submit, and hides records of others with 404', async () => {
    const id = await register();
    await act(id, 'submit', STRANGER).expect(404);
    expect((await act(id, 'submit', ADMIN).expect(403)).body.code).to.equal('owner_only');
    await act(id, 'submit', OWNER).expect(200);
    for (const action of ['approve', 'pause']) expect((await act(id, action, OWNER).expect(403)).body.code).to.equal('admin_only');
    expect((await act(id, 'reject', OWNER, { reason: 'x' }).expect(403)).body.code).to.equal('admin_only');
    await h.call('get', `/api/workspace/publishers/${id}`, STRANGER).expect(404);
    await h.call('get', `/api/workspace/publishers/${id}`, OWNER).expect(200);
    await h.call('get', `/api/workspace/publishers/${id}`, ADMIN).expect(200);
    await h.call('get', '/api/workspace/publishers/999999', OWNER).expect(404);
    await h.call('get', '/api/workspace/publishers/abc', OWNER).expect(404);
  });

  it('lists own records newest first, all of them for an administrator, filtered by status (the review queue)', async () => {
    const mine = await register(STRANGER);
    const later = await register(STRANGER);
    await act(later, 'submit', STRANGER).expect(200);
    const list = await h.call('get', '/api/workspace/publishers', STRANGER).expect(200);
    expect(list.body.items.map((item: { id: number }) => item.id)).to.deep.equal([later, mine]);
    const queue = await h.call('get', '/api/workspace/publishers?status=submitted', ADMIN).expect(200);
    expect(queue.body.items.map((item: { id: number }) => item.id)).to.include(later).and.not.include(mine);
    expect(queue.body.items.every((item: { status: string }) => item.status === 'submitted')).to.equal(true);
    const all = await h.call('get', '/api/workspace/publishers', ADMIN).expect(200);
    expect(new Set(all.body.items.map((item: { ownerAccountId: string }) => item.ownerAccountId)).size).to.be.above(1);
    expect((await h.call('get', '/api/workspace/publishers?status=active', OWNER).expect(400)).body.code).to.equal('invalid_status');
  });

  it('lets only the owner of an approved platform generate a key, shown once, whose hash the read model knows', async () => {
    const id = await register();
    expect((await h.call('post', `/api/workspace/publishers/${id}/keys`, OWNER).expect(409)).body.code).to.equal('publisher_not_approved');
    await act(id, 'submit', OWNER).expect(200);
    await act(id, 'approve', ADMIN).expect(200);
    expect((await h.call('post', `/api/workspace/publishers/${id}/keys`, ADMIN).expect(403)).body.code).to.equal('owner_only');
    await h.call('post', `/api/workspace/publishers/${id}/keys`, STRANGER).expect(404);
    const response = await h.call('post', `/api/workspace/publishers/${id}/keys`, OWNER).expect(201);
    expect(response.headers['cache-control']).to.equal('no-store');
    expect(response.body).to.have.all.keys('key', 'keyCreatedAt', 'previousKeyExpiresAt');
    expect(isWellFormedApiKey(response.body.key)).to.equal(true);
    expect(await h.keys.findKeyOwner(response.body.key)).to.deep.equal({ publisherId: id, ownerAccountId: OWNER.accountId, type: 'channel' });
    const record = await h.call('get', `/api/workspace/publishers/${id}`, OWNER).expect(200);
    expect(record.body.keyCreatedAt).to.equal(response.body.keyCreatedAt);
    expect(JSON.stringify(record.body)).to.not.contain(response.body.key);
    const audit = await h.call('get', `/internal/audit?entity=publisher&entityId=${id}`, OWNER).expect(200);
    expect(JSON.stringify(audit.body)).to.not.contain(response.body.key);
  });

  it('revokes the previous key in the read model before the rotation answers, 100 times in a row', async () => {
    const id = await approved();
    let previous = await newKey(id);
    for (let round = 0; round < 100; round += 1) {
      const next = await newKey(id);
      expect(await h.keys.findKeyOwner(previous), `round ${round}: old key`).to.equal(null);
      expect(await h.keys.findKeyOwner(next), `round ${round}: new key`).to.not.equal(null);
      previous = next;
    }
  });

  it('removes access in the read model before a pause or a rejection answers, and restores it on approval', async () => {
    const id = await approved();
    const key = await newKey(id);
    await act(id, 'pause', ADMIN).expect(200);
    expect(await h.keys.findKeyOwner(key)).to.equal(null);
    expect(await h.keys.publisherStatus(id)).to.equal('paused');
    await h.call('post', `/api/workspace/publishers/${id}/keys`, OWNER).expect(409);
    await act(id, 'approve', ADMIN).expect(200);
    expect(await h.keys.findKeyOwner(key)).to.not.equal(null);
    expect(await h.keys.publisherStatus(id)).to.equal('approved');
    await act(id, 'reject', ADMIN, { reason: 'policy' }).expect(200);
    expect(await h.keys.findKeyOwner(key)).to.equal(null);
    expect(await h.keys.publisherStatus(id)).to.equal('rejected');
  });

  it('refuses an administrator who approves or rejects a platform of its own with 403, as for campaigns', async () => {
    const created = await h.call('post', '/api/workspace/publishers', ADMIN).send({ type: 'bot', link: '@admins_own_bot' }).expect(201);
    await act(created.body.id, 'submit', ADMIN).expect(200);
    expect((await act(created.body.id, 'approve', ADMIN).expect(403)).body.code).to.equal('own_platform_review');
    expect((await act(created.body.id, 'reject', ADMIN, { reason: 'mine' }).expect(403)).body.code).to.equal('own_platform_review');
    expect((await h.call('get', `/api/workspace/publishers/${created.body.id}`, ADMIN).expect(200)).body.status).to.equal('submitted');
  });

  it('lets exactly one of two concurrent approvals win', async () => {
    const id = await register();
    await act(id, 'submit', OWNER).expect(200);
    const results = await Promise.all([act(id, 'approve', ADMIN), act(id, 'approve', ADMIN), act(id, 'approve', ADMIN)]);
    const statuses = results.map((response) => response.status).sort();
    expect(statuses).to.deep.equal([200, 409, 409]);
    const audit = await h.call('get', `/internal/audit?entity=publisher&entityId=${id}`, ADMIN).expect(200);
    expect(audit.body.items.filter((item: { action: string }) => item.action === 'approved')).to.have.length(1);
  });

  it('never lets two concurrent key generations both hand out a working key', async () => {
    const id = await approved();
    const results = await Promise.all([0, 1, 2].map(() => h.call('post', `/api/workspace/publishers/${id}/keys`, OWNER)));
    const keys = results.filter((response) => response.status === 201).map((response) => response.body.key as string);
    expect(keys.length).to.be.at.least(1);
    const working = (await Promise.all(keys.map((key) => h.keys.findKeyOwner(key)))).filter((owner) => owner !== null);
    expect(working).to.have.length(1);
  });

  it('writes an audit entry and publishes an event for every transition and rotation', async () => {
    const id = await approved();
    await newKey(id);
    await newKey(id);
    await act(id, 'pause', ADMIN).expect(200);
    await act(id, 'reject', ADMIN, { reason: 'gone' }).expect(200);
    const audit = await h.call('get', `/internal/audit?entity=publisher&entityId=${id}`, OWNER).expect(200);
    expect(audit.body.items.map((item: { action: string }) => item.action)).to.deep.equal([
      'rejected',
      'paused',
      'key_rotated',
      'key_generated',
      'approved',
      'submitted',
      'created',
    ]);
    expect(audit.body.items[0]).to.deep.equal({
      at: audit.body.items[0].at,
      actorAccountId: ADMIN.accountId,
      entity: 'publisher',
      entityId: String(id),
      action: 'rejected',
      from: 'paused',
      to: 'rejected',
      reason: 'gone',
      // its place in the audit's order, for the gateway's cursor: the entity and the entry's id
      key: `publisher/${id}:7`,
    });
    expect((await h.call('get', `/internal/audit?entity=publisher&entityId=${id}`, STRANGER).expect(200)).body.items).to.deep.equal([]);
    expect((await h.call('get', `/internal/audit?entity=publisher&entityId=${id}`, ADMIN).expect(200)).body.items).to.have.length(7);
    expect((await h.call('get', '/internal/audit?entity=campaign', ADMIN).expect(200)).body.items).to.deep.equal([]);

    const types = await waitFor(
      () => {
        // At least once: two replicas' relays may both publish an entry; consumers dedupe by event id.
        const mine = [...new Map(h.events.filter((event) => event.aggregateId === String(id)).map((event) => [event.id, event])).values()];
        return mine.length >= 6 ? mine.sort((a, b) => a.aggregateVersion - b.aggregateVersion).map((event) => event.type) : null;
      },
      { message: 'publisher events' },
    );
    expect(types).to.deep.equal([
      'publisher.submitted',
      'publisher.approved',
      'publisher.key_rotated',
      'publisher.key_rotated',
      'publisher.paused',
      'publisher.rejected',
    ]);
    const rejected = h.events.find((event) => event.aggregateId === String(id) && event.type === 'publisher.rejected')!;
    expect(rejected.data).to.deep.include({ publisherId: id, ownerAccountId: OWNER.accountId, status: 'rejected', type: 'channel', actorAccountId: ADMIN.accountId, reason: 'gone' });
    expect(JSON.stringify(h.events)).to.not.match(/pilot_pk_/);
  });

  it('rebuilds the key read model from the database when a replica starts', async () => {
    const id = await approved();
    const key = await newKey(id);
    const paused = await approved();
    const pausedKey = await newKey(paused);
    await act(paused, 'pause', ADMIN).expect(200);
    const stale = await h.redis.keys(`${h.infra.redisPrefix}*`);
    await h.redis.del(...stale);
    expect(await h.keys.findKeyOwner(key)).to.equal(null);
    await h.replica();
    expect(await h.keys.findKeyOwner(key)).to.deep.include({ publisherId: id });
    expect(await h.keys.findKeyOwner(pausedKey)).to.equal(null);
    expect(await h.keys.publisherStatus(paused)).to.equal('paused');
  });
  describe('test keys (sandbox)', () => {
    const testKeyPath = (id: number) => `/api/workspace/publishers/${id}/test-key`;
    async function newTestKey(id: number, who: Who = OWNER): Promise<string> {
      const response = await h.call('post', testKeyPath(id), who).expect(201);
      return response.body.key as string;
    }

    it('lets the owner of a draft platform create a test key, shown once, prefixed, working at once', async () => {
      const id = await register();
      const response = await h.call('post', testKeyPath(id), OWNER).expect(201);
      expect(response.headers['cache-control']).to.equal('no-store');
      expect(response.body).to.have.all.keys('key', 'keyCreatedAt');
      expect(response.body.key).to.match(/^pilot_pk_test_/);
      expect(kindOfApiKey(response.body.key)).to.equal('test');
      expect(await h.keys.checkKey(response.body.key)).to.deep.include({ publisherId: id, status: 'draft', keyKind: 'test' });
      const record = await h.call('get', `/api/workspace/publishers/${id}`, OWNER).expect(200);
      expect(record.body).to.include({ testKeyCreatedAt: response.body.keyCreatedAt, keyCreatedAt: null, status: 'draft' });
      expect(JSON.stringify(record.body)).to.not.contain(response.body.key);
      const audit = await h.call('get', `/internal/audit?entity=publisher&entityId=${id}`, OWNER).expect(200);
      expect(audit.body.items.map((entry: { action: string }) => entry.action)).to.include('test_key_generated');
      expect(JSON.stringify(audit.body)).to.not.contain(response.body.key);
    });

    it('lets only the owner make or revoke it: 403 for an administrator, 404 for a stranger', async () => {
      const id = await register();
      expect((await h.call('post', testKeyPath(id), ADMIN).expect(403)).body.code).to.equal('owner_only');
      await h.call('post', testKeyPath(id), STRANGER).expect(404);
      await newTestKey(id);
      expect((await h.call('delete', testKeyPath(id), ADMIN).expect(403)).body.code).to.equal('owner_only');
      await h.call('delete', testKeyPath(id), STRANGER).expect(404);
      await h.call('post', testKeyPath(id), null).expect(401);
    });

    it('replaces the previous test key, and rotating or revoking one key never touches the other', async () => {
      const id = await approved();
      const live = await newKey(id);
      const first = await newTestKey(id);
      const second = await newTestKey(id);
      expect(await h.keys.checkKey(first), 'the replaced test key').to.equal(null);
      expect(await h.keys.checkKey(second)).to.deep.include({ keyKind: 'test' });
      expect(await h.keys.findKeyOwner(live), 'the live key after a new test key').to.not.equal(null);
      const nextLive = await newKey(id);
      expect(await h.keys.findKeyOwner(live)).to.equal(null);
      expect(await h.keys.checkKey(second), 'the test key after a rotation of the live key').to.deep.include({ keyKind: 'test' });
      await h.call('delete', testKeyPath(id), OWNER).expect(204);
      expect(await h.keys.checkKey(second)).to.equal(null);
      expect(await h.keys.findKeyOwner(nextLive), 'the live key after the test key is revoked').to.not.equal(null);
      const record = await h.call('get', `/api/workspace/publishers/${id}`, OWNER).expect(200);
      expect(record.body.testKeyCreatedAt).to.equal(null);
      await h.call('delete', testKeyPath(id), OWNER).expect(204);
      const audit = await h.call('get', `/internal/audit?entity=publisher&entityId=${id}`, OWNER).expect(200);
      const actions = audit.body.items.map((entry: { action: string }) => entry.action);
      expect(actions.filter((action: string) => action === 'test_key_revoked')).to.have.length(1);
      expect(actions).to.include('test_key_rotated');
    });

    it('keeps the test key through a pause and a rejection, which revoke the live key as before', async () => {
      const id = await approved();
      const live = await newKey(id);
      const test = await newTestKey(id);
      await act(id, 'pause', ADMIN).expect(200);
      expect(await h.keys.checkKey(test)).to.deep.include({ status: 'paused', keyKind: 'test' });
      await act(id, 'reject', ADMIN, { reason: 'The channel is not yours' }).expect(200);
      expect(await h.keys.checkKey(live)).to.equal(null);
      expect(await h.keys.checkKey(test)).to.deep.include({ status: 'rejected', keyKind: 'test' });
    });

    it('shows the rejection reason with the platform while it stands', async () => {
      const id = await register();
      await act(id, 'submit', OWNER).expect(200);
      await act(id, 'reject', ADMIN, { reason: 'We could not verify ownership' }).expect(200);
      const rejected = await h.call('get', `/api/workspace/publishers/${id}`, OWNER).expect(200);
      expect(rejected.body).to.include({ status: 'rejected', rejectionReason: 'We could not verify ownership' });
      await act(id, 'submit', OWNER).expect(200);
      expect((await h.call('get', `/api/workspace/publishers/${id}`, OWNER).expect(200)).body.rejectionReason).to.equal(null);
    });

    it('rebuilds test keys into the read model from the database', async () => {
      const id = await register();
      const test = await newTestKey(id);
      await h.keys.writePublisher({ publisherId: id, status: 'draft', ownerAccountId: OWNER.accountId, type: 'channel', keyHash: null, testKeyHash: null, version: 0, incarnation: 'x' });
      expect(await h.keys.checkKey(test)).to.equal(null);
      await h.service.rebuildReadModel();
      expect(await h.keys.checkKey(test)).to.deep.include({ publisherId: id, keyKind: 'test' });
    });
  });
});
