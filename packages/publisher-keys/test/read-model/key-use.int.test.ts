import { testInfra, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { Redis } from 'ioredis';
import { KEY_USE_RESOLUTION_MS, KeyReadModel, KeyUseRecorder, readKeyUses } from '../../src';

describe('publisher-keys: when a key was last used (real Redis)', () => {
  const infra = testInfra();
  const redis = new Redis(infra.redisUrl, { lazyConnect: true });
  const settle = () => redis.ping(); // the recorder does not wait for its write; a later command on the same connection does

  before(async () => {
    await redis.connect();
  });
  after(async () => {
    const keys = await redis.keys(`${infra.redisPrefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    redis.disconnect();
  });

  it('keeps each kind of key apart, and nothing for a platform whose keys were never used', async () => {
    const recorder = new KeyUseRecorder(redis, infra.redisPrefix);
    const at = new Date('2026-05-01T10:00:00.000Z');
    expect(recorder.touch(41, 'live', at)).to.equal(true);
    await settle();
    expect(await readKeyUses(redis, infra.redisPrefix, 41)).to.deep.equal({ live: at, test: null });
    expect(recorder.touch(41, 'test', new Date(at.getTime() + 5))).to.equal(true);
    await settle();
    expect((await readKeyUses(redis, infra.redisPrefix, 41)).test?.toISOString()).to.equal('2026-05-01T10:00:00.005Z');
    expect(await readKeyUses(redis, infra.redisPrefix, 42)).to.deep.equal({ live: null, test: null });
  });

  it('writes at most once a minute per key: uses within the minute leave the first one stored', async () => {
    const recorder = new KeyUseRecorder(redis, infra.redisPrefix);
    const first = new Date('2026-05-01T11:00:00.000Z');
    const written = [0, 1_000, 30_000, KEY_USE_RESOLUTION_MS - 1].map((offset) => recorder.touch(43, 'live', new Date(first.getTime() + offset)));
    expect(written).to.deep.equal([true, false, false, false]);
    await settle();
    expect((await readKeyUses(redis, infra.redisPrefix, 43)).live).to.deep.equal(first);
    const later = new Date(first.getTime() + KEY_USE_RESOLUTION_MS);
    expect(recorder.touch(43, 'live', later)).to.equal(true);
    await settle();
    expect((await readKeyUses(redis, infra.redisPrefix, 43)).live).to.deep.equal(later);
  });

  it('lives beside the key read model without being swept as a stale key entry', async () => {
    const recorder = new KeyUseRecorder(redis, infra.redisPrefix);
    const at = new Date('2026-05-01T12:00:00.000Z');
    recorder.touch(44, 'live', at);
    await settle();
    await new KeyReadModel(redis, infra.redisPrefix).sweep('db-1');
    expect((await readKeyUses(redis, infra.redisPrefix, 44)).live).to.deep.equal(at);
  });

  it('reports a failed write instead of throwing, and tries again on the next use', async () => {
    const broken = new Redis('redis://127.0.0.1:1', { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0 });
    broken.on('error', () => undefined); // the refused connection is the point of this test
    const errors: unknown[] = [];
    const recorder = new KeyUseRecorder(broken, infra.redisPrefix, (error) => errors.push(error));
    const at = new Date('2026-05-01T13:00:00.000Z');
    expect(recorder.touch(45, 'live', at)).to.equal(true);
    await waitFor(() => errors.length > 0, { message: 'the failed write reported' });
    expect(errors).to.have.length(1);
    expect(recorder.touch(45, 'live', new Date(at.getTime() + 1_000))).to.equal(true);
    broken.disconnect();
  });
});
