import { createHash } from 'node:crypto';
import { uniqueName } from '@pilot/testkit';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { generateApiKey, hashApiKey, KeyReadModel } from '../../src';

describe('key read model: versioned writes', () => {
  let redis: Redis;
  let model: KeyReadModel;
  const owner = { publisherId: 7, ownerAccountId: '42', type: 'bot' as const };
  const key = 'pilot_pk_example_key_a';
  const next = 'pilot_pk_example_key_b';
  const hash = (value: string) => createHash('sha256').update(value).digest('hex');
  const write = (status: string, version: number, keyHash: string | null, revoked: string[] = [], incarnation = 'db-1') =>
    model.writePublisher({ ...owner, status, version, keyHash, incarnation }, revoked);

  beforeEach(async () => {
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    model = new KeyReadModel(redis, `${uniqueName('krm')}:`);
  });
  afterEach(() => redis.disconnect());

  it('applies a write of the same or a newer version and ignores an older one', async () => {
    expect(await write('approved', 2, hash(key))).to.equal(true);
    expect(await model.findKeyOwner(key)).to.deep.equal(owner);
    expect(await write('paused', 3, hash(key))).to.equal(true);
    expect(await model.findKeyOwner(key)).to.equal(null);
    expect(await write('approved', 2, hash(key))).to.equal(false);
    expect(await model.findKeyOwner(key)).to.equal(null);
    expect(await model.publisherStatus(7)).to.equal('paused');
    expect(await write('paused', 3, hash(key))).to.equal(true);
  });

  it('revokes earlier keys in the same atomic write', async () => {
    await write('approved', 1, hash(key));
    await write('approved', 2, hash(next), [hash(key)]);
    expect(await model.findKeyOwner(key)).to.equal(null);
    expect(await model.findKeyOwner(next)).to.deep.equal(owner);
    await write('approved', 3, null, [hash(next)]);
    expect(await model.findKeyOwner(next)).to.equal(null);
    expect(await model.publisherStatus(7)).to.equal('approved');
  });

  it('lets a write of another database incarnation replace entries whatever their version', async () => {
    // A fresh database starts its versions again at 1; a newer version left by another one must not win.
    expect(await write('paused', 9, hash(key), [], 'old-db')).to.equal(true);
    expect(await write('approved', 4, hash(next), [], 'new-db')).to.equal(true);
    expect(await model.findKeyOwner(next)).to.deep.equal(owner);
    expect(await write('approved', 3, hash(key), [], 'new-db')).to.equal(false);
  });

  it('sweeps out entries of other incarnations and key entries that are no longer current', async () => {
    const prefix = `${uniqueName('krm')}:`;
    const swept = new KeyReadModel(redis, prefix);
    const live = generateApiKey();
    const ghost = generateApiKey();
    await swept.writePublisher({ publisherId: 1, ownerAccountId: '1', type: 'bot', status: 'approved', version: 7, keyHash: hashApiKey(ghost), incarnation: 'old-db' });
    await swept.writePublisher({ publisherId: 2, ownerAccountId: '2', type: 'bot', status: 'approved', version: 7, keyHash: hashApiKey(ghost), incarnation: 'old-db' });
    await swept.writePublisher({ publisherId: 1, ownerAccountId: '3', type: 'bot', status: 'approved', version: 4, keyHash: hashApiKey(live), incarnation: 'new-db' });
    expect(await swept.sweep('new-db')).to.equal(2); // publisher 2's entry and the ghost key's entry
    expect(await swept.findKeyOwner(live)).to.deep.equal({ publisherId: 1, ownerAccountId: '3', type: 'bot' });
    expect(await swept.findKeyOwner(ghost)).to.equal(null);
    expect(await swept.publisherStatus(2)).to.equal(null);
    expect((await redis.keys(`${prefix}*`)).sort()).to.deep.equal([`${prefix}key:${hashApiKey(live)}`, `${prefix}publisher:1`]);
    await redis.del(`${prefix}key:${hashApiKey(live)}`, `${prefix}publisher:1`);
  });
});
