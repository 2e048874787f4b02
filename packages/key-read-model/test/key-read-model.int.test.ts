import { testInfra } from '@pilot/testkit';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { generateApiKey, hashApiKey, KeyReadModel, type PublisherEntry } from '../src';

describe('key-read-model: KeyReadModel (real Redis)', () => {
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
    expect(await model.checkKey(key)).to.deep.equal({ publisherId: 9, ownerAccountId: '7001', type: 'channel', status: 'paused' });
    expect(await model.findKeyOwner(key)).to.equal(null);
    expect(await model.checkKey(generateApiKey())).to.equal(null);
  });

  it('keeps deployments with different prefixes apart', async () => {
    const key = generateApiKey();
    await write(approved(7), hashApiKey(key));
    const other = new KeyReadModel(redis, `${infra.redisPrefix}other:`);
    expect(await other.findKeyOwner(key)).to.equal(null);
  });
});
