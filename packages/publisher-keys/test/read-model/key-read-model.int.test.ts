import { testInfra } from '@pilot/testkit';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { generateApiKey, hashApiKey, KeyReadModel, type PublisherEntry } from '../../src';

describe('publisher-keys: KeyReadModel (real Redis)', () => {
  const infra = testInfra();
  const redis = new Redis(infra.redisUrl, { lazyConnect: true });
  const model = new KeyReadModel(redis, infra.redisPrefix);
  const approved = (publisherId: number): Omit<PublisherEntry, 'keyHash'> => ({ publisherId, status: 'approved', ownerAccountId: '7001', type: 'channel', version: 1, incarnation: 'db-1' });
  const write = (entry: Omit<PublisherEntry, 'keyHash'>, keyHash: string | null, revoked: string[] = []) => model.writePublisher({ ...entry, keyHash }, revoked);

  before(async () => {
    await redis.connect();
  });
  after(async () => {
    const keys = await redis.keys(`${infra.redisPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('finds the approved publisher of a current key, and nothing for an unknown key', async () => {
    const key = generateApiKey();
    await write(approved(1), hashApiKey(key));
    expect(await model.findKeyOwner(key)).to.deep.equal({ publisherId: 1, ownerAccountId: '7001', type: 'channel' });
    expect(await model.publisherStatus(1)).to.equal('approved');
    expect(await model.findKeyOwner(generateApiKey())).to.equal(null);
    expect(await model.publisherStatus(999)).to.equal(null);
  });

  it('stores only the hash of a key, under the deployment prefix', async () => {
    const key = generateApiKey();
    await write({ ...approved(2), type: 'bot' }, hashApiKey(key));
    const stored = await redis.keys(`${infra.redisPrefix}*`);
    expect(stored).to.include(`${infra.redisPrefix}key:${hashApiKey(key)}`);
    expect(stored).to.include(`${infra.redisPrefix}publisher:2`);
    for (const name of stored) {
      expect(name).not.to.contain(key);
      const values = Object.values(await redis.hgetall(name));
      expect(values).not.to.include(key);
    }
    expect((await model.findKeyOwner(key))?.type).to.equal('bot');
  });

  it('after a rotation accepts the new key and no longer the old one', async () => {
    const oldKey = generateApiKey();
    const newKey = generateApiKey();
    await write(approved(3), hashApiKey(oldKey));
    await write(approved(3), hashApiKey(newKey), [hashApiKey(oldKey)]);
    expect(await model.findKeyOwner(oldKey)).to.equal(null);
    expect(await model.findKeyOwner(newKey)).to.deep.include({ publisherId: 3 });
    expect(await redis.exists(`${infra.redisPrefix}key:${hashApiKey(oldKey)}`)).to.equal(0);
  });

  it('refuses the key of a paused publisher and accepts it again once approved', async () => {
    const key = generateApiKey();
    await write(approved(4), hashApiKey(key));
    await write({ ...approved(4), status: 'paused' }, hashApiKey(key));
    expect(await model.findKeyOwner(key)).to.equal(null);
    expect(await model.publisherStatus(4)).to.equal('paused');
    await write(approved(4), hashApiKey(key));
    expect(await model.findKeyOwner(key)).to.deep.include({ publisherId: 4 });
  });

  it('never makes a key of a publisher that is not approved usable', async () => {
    const key = generateApiKey();
    for (const status of ['submitted', 'rejected', 'draft']) {
      await write({ ...approved(5), status }, hashApiKey(key));
      expect(await model.findKeyOwner(key), status).to.equal(null);
      expect(await model.publisherStatus(5)).to.equal(status);
    }
  });

  it('records a publisher without any key', async () => {
    await write({ ...approved(6), status: 'submitted' }, null);
    expect(await model.publisherStatus(6)).to.equal('submitted');
  });

  it('ignores a key entry that is not the current key of its publisher (corrupted or planted)', async () => {
    const key = generateApiKey();
    await write(approved(8), hashApiKey(generateApiKey()));
    await redis.hset(`${infra.redisPrefix}key:${hashApiKey(key)}`, { publisherId: '8' });
    expect(await model.findKeyOwner(key)).to.equal(null);
    expect(await model.checkKey(key)).to.equal(null);
  });

  it('tells the current key of a paused publisher (checkKey) from an unknown key', async () => {
    const key = generateApiKey();
    await write({ ...approved(9), status: 'paused' }, hashApiKey(key));
    expect(await model.checkKey(key)).to.deep.equal({ publisherId: 9, ownerAccountId: '7001', type: 'channel', status: 'paused', keyKind: 'live' });
    expect(await model.findKeyOwner(key)).to.equal(null);
    expect(await model.checkKey(generateApiKey())).to.equal(null);
  });

  it('keeps deployments with different prefixes apart', async () => {
    const key = generateApiKey();
    await write(approved(7), hashApiKey(key));
    const other = new KeyReadModel(redis, `${infra.redisPrefix}other:`);
    expect(await other.findKeyOwner(key)).to.equal(null);
  });

  describe('test keys (sandbox)', () => {
    const withTestKey = (entry: Omit<PublisherEntry, 'keyHash'>, keyHash: string | null, testKeyHash: string | null, revoked: string[] = []) =>
      model.writePublisher({ ...entry, keyHash, testKeyHash }, revoked);

    it('accepts a platform\'s test key whatever its status, told apart from its live key', async () => {
      const live = generateApiKey();
      const test = generateApiKey('test');
      await withTestKey({ ...approved(20), status: 'submitted' }, hashApiKey(live), hashApiKey(test));
      expect(await model.checkKey(test)).to.deep.equal({ publisherId: 20, ownerAccountId: '7001', type: 'channel', status: 'submitted', keyKind: 'test' });
      expect(await model.checkKey(live)).to.deep.include({ keyKind: 'live', status: 'submitted' });
      expect(await model.findKeyOwner(test), 'a test key never names an owner for live use').to.equal(null);
    });

    it('never takes a live key for the test key or the other way round', async () => {
      const live = generateApiKey();
      const test = generateApiKey('test');
      await withTestKey(approved(21), hashApiKey(test), hashApiKey(live));
      expect(await model.checkKey(test), 'a test key stored as the live key').to.equal(null);
      expect(await model.checkKey(live), 'a live key stored as the test key').to.equal(null);
    });

    it('rotating the live key leaves the test key working, and revoking the test key leaves the live key', async () => {
      const live = generateApiKey();
      const test = generateApiKey('test');
      await withTestKey(approved(23), hashApiKey(live), hashApiKey(test));
      const nextLive = generateApiKey();
      await withTestKey(approved(23), hashApiKey(nextLive), hashApiKey(test), [hashApiKey(live)]);
      expect(await model.checkKey(live)).to.equal(null);
      expect(await model.checkKey(nextLive)).to.deep.include({ keyKind: 'live' });
      expect(await model.checkKey(test)).to.deep.include({ keyKind: 'test', publisherId: 23 });
      await withTestKey(approved(23), hashApiKey(nextLive), null, [hashApiKey(live), hashApiKey(test)]);
      expect(await model.checkKey(test)).to.equal(null);
      expect(await redis.exists(`${infra.redisPrefix}key:${hashApiKey(test)}`)).to.equal(0);
      expect(await model.checkKey(nextLive)).to.deep.include({ keyKind: 'live' });
    });

    it('the sweep keeps a current test key entry and removes a revoked one', async () => {
      const test = generateApiKey('test');
      const old = generateApiKey('test');
      await withTestKey({ ...approved(24), status: 'draft' }, null, hashApiKey(test));
      await redis.hset(`${infra.redisPrefix}key:${hashApiKey(old)}`, { publisherId: '24' });
      await model.sweep('db-1');
      expect(await model.checkKey(test)).to.deep.include({ publisherId: 24, keyKind: 'test' });
      expect(await redis.exists(`${infra.redisPrefix}key:${hashApiKey(old)}`)).to.equal(0);
    });
  });
});
