import { createHash } from 'node:crypto';
import { uniqueName } from '@pilot/testkit';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { KeyReadModel } from '../src';

describe('key read model: versioned writes', () => {
  let redis: Redis;
  let model: KeyReadModel;
  const owner = { publisherId: 7, ownerAccountId: '42', type: 'bot' as const };
  const key = 'pilot_pk_example_key_a';
  const next = 'pilot_pk_example_key_b';
  const hash = (value: string) => createHash('sha256').update(value).digest('hex');

  beforeEach(async () => {
    redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    model = new KeyReadModel(redis, `${uniqueName('krm')}:`);
  });
  afterEach(() => redis.disconnect());

  it('applies a write of the same or a newer version and ignores an older one', async () => {
    expect(await model.writePublisherVersioned({ ...owner, status: 'approved' }, 2, hash(key))).to.equal(true);
    expect(await model.findKeyOwner(key)).to.deep.equal(owner);
    expect(await model.writePublisherVersioned({ ...owner, status: 'paused' }, 3, hash(key))).to.equal(true);
    expect(await model.findKeyOwner(key)).to.equal(null);
    expect(await model.writePublisherVersioned({ ...owner, status: 'approved' }, 2, hash(key))).to.equal(false);
    expect(await model.findKeyOwner(key)).to.equal(null);
    expect(await model.publisherStatus(7)).to.equal('paused');
    expect(await model.writePublisherVersioned({ ...owner, status: 'paused' }, 3, hash(key))).to.equal(true);
  });

  it('revokes earlier keys in the same atomic write', async () => {
    await model.writePublisherVersioned({ ...owner, status: 'approved' }, 1, hash(key));
    await model.writePublisherVersioned({ ...owner, status: 'approved' }, 2, hash(next), [hash(key)]);
    expect(await model.findKeyOwner(key)).to.equal(null);
    expect(await model.findKeyOwner(next)).to.deep.equal(owner);
    await model.writePublisherVersioned({ ...owner, status: 'approved' }, 3, null, [hash(next)]);
    expect(await model.findKeyOwner(next)).to.equal(null);
    expect(await model.publisherStatus(7)).to.equal('approved');
  });
});
