import { OwnRedis, reservedPort } from '@pilot/testkit';
import { createRedis, waitForRedis, type Redis } from '@pilot/platform';
import { expect } from 'chai';
import { CountJournal, CountRecorder, dayOf } from '../src';
import { foldCounts } from './fold-counts';

describe('counting: claiming an interval whatever state Redis is in (a redis-server of its own)', function () {
  this.timeout(60_000);
  let server: OwnRedis;
  let redis: Redis;
  let serial = 0;
  const at = new Date('2026-06-01T12:00:00.000Z');
  const later = new Date(at.getTime() + 3_600_000);
  const day = dayOf(at);

  before(async () => {
    server = new OwnRedis(await reservedPort(), ['--maxmemory', '8mb', '--maxmemory-policy', 'noeviction']);
    await server.start();
    redis = createRedis(server.url, 'claim-test');
    await waitForRedis(redis);
  });
  after(async () => {
    redis?.disconnect();
    await server?.remove();
  });

  /** A journal and recorder under a prefix of their own, with one interval of counts: all 2, s:home 1, s:tr 1. */
  async function countedInterval() {
    serial += 1;
    const prefix = `claim${serial}:`;
    const recorder = new CountRecorder(redis, prefix, 2000, 60_000);
    const journal = new CountJournal(redis, prefix);
    await recorder.count(['all', 's:home'], day, 'impressions', at);
    await recorder.count(['all', 's:tr'], day, 'impressions', at);
    const [interval] = await journal.closedIntervals(later, 0);
    return { prefix, journal, interval: interval! };
  }

  it('folds the grains that are there when one grain\'s hash is gone, leaving nothing open or stranded', async () => {
    const { prefix, journal, interval } = await countedInterval();
    // What a Redis that evicts keys does: the hash goes, the set still names it.
    expect(await redis.del(`${prefix}counts:i:${interval}:g:s:tr`)).to.equal(1);
    const seq = await journal.claim(interval);
    expect(seq).to.be.a('number');
    const fold = await foldCounts(redis, journal, seq!);
    expect(fold.get('all')?.get(`${day}|impressions`)).to.equal(2);
    expect(fold.get('s:home')?.get(`${day}|impressions`)).to.equal(1);
    expect(await journal.pendingFolds()).to.deep.equal([seq]);
    expect(await journal.closedIntervals(later, 0)).to.deep.equal([]);
  });

  it('claims an interval whole while Redis is out of memory and refuses other writes (folding is what frees it)', async () => {
    const { journal, interval } = await countedInterval();
    // One script may write past maxmemory; after it every write that needs memory is refused.
    await redis.eval(`for i = 1, 40000 do redis.call('SET', 'filler:' .. i, string.rep('x', 200)) end return 1`, 0);
    const refused = await redis.set('one-more', 'x').then(
      () => null,
      (error: Error) => error,
    );
    expect(refused?.message).to.match(/OOM/);
    const seq = await journal.claim(interval);
    expect(seq).to.be.a('number');
    expect((await foldCounts(redis, journal, seq!)).get('all')?.get(`${day}|impressions`)).to.equal(2);
    expect(await journal.closedIntervals(later, 0)).to.deep.equal([]);
    await redis.eval(`for i = 1, 40000 do redis.call('DEL', 'filler:' .. i) end return 1`, 0);
  });
});
