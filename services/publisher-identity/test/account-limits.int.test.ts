import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import { ADMIN, OWNER, STRANGER, startHarness, type Harness, type Who } from './support';

describe('publisher-identity: what one account may create', function () {
  this.timeout(120_000);
  let h: Harness;
  before(async () => {
    h = await startHarness({ KEY_ROTATION_LIMIT_POINTS: '3' });
  });
  after(async () => {
    await h.stop();
  });

  let serial = 0;
  const register = (who: Who, on = h.service.url) => {
    serial += 1;
    return h.call('post', '/api/workspace/publishers', who, { baseUrl: on }).send({ type: 'channel', link: `https://t.me/limit_channel_${serial}` });
  };

  it('refuses the 101st platform of an account with 409 publisher_limit, exactly, also when two replicas create at once', async () => {
    const account: Who = { accountId: '8801', admin: false };
    for (let i = 0; i < 95; i += 1) await register(account).expect(201);
    const other = await h.replica();
    const racing = await Promise.all(Array.from({ length: 10 }, (_, index) => register(account, index % 2 === 0 ? h.service.url : other.url)));
    const refused = racing.filter((response) => response.status === 409);
    expect(racing.filter((response) => response.status === 201)).to.have.length(5);
    expect(refused).to.have.length(5);
    for (const response of refused) expect(response.body).to.include({ code: 'publisher_limit' });
    const listed = await h.call('get', '/api/workspace/publishers?limit=100', account).expect(200);
    expect(listed.body.items).to.have.length(100);
    expect((await register(account).expect(409)).body.code).to.equal('publisher_limit');
    await register({ accountId: '8802', admin: false }).expect(201);
  });

  it('gives back a count that a create which died before its record left, once the account is at its limit', async () => {
    const account: Who = { accountId: '8803', admin: false };
    for (let i = 0; i < 99; i += 1) await register(account).expect(201);
    const client = await MongoClient.connect(h.infra.mongoUrl);
    try {
      const db = client.db(h.env.MONGO_DB);
      // A create took the 100th count an hour ago and died before its record.
      const { matchedCount } = await db.collection('publisher_counts').updateOne({ _id: '8803' as never, count: 99 }, { $set: { count: 100, lastTakenAt: new Date(h.clock.now().getTime() - 3_600_000) } });
      expect(matchedCount).to.equal(1);
    } finally {
      await client.close();
    }
    await register(account).expect(201);
    expect((await register(account).expect(409)).body.code).to.equal('publisher_limit');
  });

  it('limits the keys and test keys an account generates per window with 429 rate_limited; revoking a test key is never limited', async () => {
    const created = await register(OWNER).expect(201);
    const id = created.body.id as number;
    await h.call('post', `/api/workspace/publishers/${id}/submit`, OWNER).expect(200);
    await h.call('post', `/api/workspace/publishers/${id}/approve`, ADMIN).expect(200);
    await h.call('post', `/api/workspace/publishers/${id}/keys`, OWNER).expect(201);
    await h.call('post', `/api/workspace/publishers/${id}/test-key`, OWNER).expect(201);
    await h.call('post', `/api/workspace/publishers/${id}/keys`, OWNER).expect(201);
    const refused = await h.call('post', `/api/workspace/publishers/${id}/test-key`, OWNER).expect(429);
    expect(refused.body.code).to.equal('rate_limited');
    expect(Number(refused.headers['retry-after'])).to.be.within(1, 3600);
    expect((await h.call('post', `/api/workspace/publishers/${id}/keys`, OWNER).expect(429)).body.code).to.equal('rate_limited');
    await h.call('delete', `/api/workspace/publishers/${id}/test-key`, OWNER).expect(204);
    // Another account has its own window.
    const theirs = (await register(STRANGER).expect(201)).body.id as number;
    await h.call('post', `/api/workspace/publishers/${theirs}/test-key`, STRANGER).expect(201);
  });
});
