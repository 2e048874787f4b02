/**
 * A failover to a replica that missed the claim of an interval: a private primary and a replica of it
 * (`--replicaof`, through a TCP relay), the relay frozen while the primary claims the interval and the
 * folder applies it, the primary killed before the replica hears of the claim, the replica promoted. The
 * replica holds the interval open again; folding it must not add it a second time.
 */
import { createLogger } from '@pilot/platform';
import { AOF_ALWAYS, OwnRedis, reservedPort, TcpRelay, testInfra, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { CountJournal, CountRecorder, type CountedAllocation } from '../../packages/counting/src';
import { COUNT_FOLDING, CountFolder, TotalsStore } from '../../packages/counting/src/totals';
import { connectMongo, type Connection } from '../../packages/storage/src';
import { createRedis, waitForRedis, type Redis } from '../../packages/platform/src';

describe('Redis failed over to a replica that missed a claim (counting)', function () {
  this.timeout(120_000);
  const infra = testInfra();
  const logger = createLogger({ service: 'redis-failover-test', level: 'silent' });
  const servers: OwnRedis[] = [];
  const clients: Redis[] = [];
  const folders: CountFolder[] = [];
  const relays: TcpRelay[] = [];
  let mongo: Connection | undefined;

  before(async () => {
    mongo = await connectMongo({ url: infra.mongoUrl, dbName: `redis_failover_${infra.runId}` });
  });

  after(async function () {
    this.timeout(60_000);
    for (const folder of folders) await folder.stop();
    for (const client of clients) client.disconnect();
    await mongo?.db?.dropDatabase().catch(() => undefined);
    await mongo?.close();
    for (const relay of relays) await relay.cut();
    for (const server of servers) await server.remove();
  });

  async function client(server: OwnRedis, name: string): Promise<Redis> {
    // WAIT answers once the replica acknowledges, within a second or so.
    const made = createRedis(server.url, name, { commandTimeoutMs: 15_000 });
    clients.push(made);
    await waitForRedis(made);
    return made;
  }

  it('applies the interval once after the replica is promoted', async () => {
    if (!mongo) throw new Error('not started');
    const primary = new OwnRedis(await reservedPort());
    servers.push(primary);
    await primary.start();
    const link = new TcpRelay(primary.url);
    relays.push(link);
    await link.open();
    const replica = new OwnRedis(await reservedPort(), [...AOF_ALWAYS, '--replicaof', '127.0.0.1', String(link.port)]);
    servers.push(replica);
    await replica.start();
    const onPrimary = await client(primary, 'failover-primary');
    const onReplica = await client(replica, 'failover-replica');
    await waitFor(async () => (await onReplica.info('replication')).includes('master_link_status:up'), { timeoutMs: 15_000, message: 'the replica in sync' });

    const prefix = infra.redisPrefix;
    const totals = new TotalsStore(mongo, 5000);
    await totals.ensureIndexes();
    const allocation: CountedAllocation = { campaignId: 51, publisherId: 61, campaignOwnerAccountId: '9921', publisherOwnerAccountId: '9922', allocatedAt: new Date() };
    const count = async (redis: Redis, from: number, to: number, at: Date) => {
      const recorder = new CountRecorder(redis, prefix, 1000, 3_600_000);
      for (let i = from; i < to; i += 1) await recorder.countAdRequest(61, { points: 1e9, windowSeconds: 60 }, { ...allocation, allocationId: `failover-${i}` }, at);
    };
    const figure = async () => (await totals.readRange(['p:61'], {})).get('p:61')?.days[allocation.allocatedAt.toISOString().slice(0, 10)]?.adRequests;
    const folderOn = (redis: Redis) => {
      const made = new CountFolder({ journal: new CountJournal(redis, prefix), totals, clock: { now: () => new Date() }, logger, tickMs: 0, ...COUNT_FOLDING });
      folders.push(made);
      return made;
    };

    await count(onPrimary, 0, 5, new Date());
    expect(await onPrimary.wait(1, 5000), 'the counts replicated').to.equal(1);

    // The primary's stream stops reaching the replica; the claim and the fold happen meanwhile.
    link.freeze();
    const onPrimaryFolder = folderOn(onPrimary);
    await onPrimaryFolder.foldNow(true);
    await onPrimaryFolder.stop();
    expect(await figure(), 'the interval folded from the primary').to.equal(5);
    await primary.stop('SIGKILL');
    await link.cut();

    // The replica promoted: it never heard of the claim.
    await onReplica.call('REPLICAOF', 'NO', 'ONE');
    const journal = new CountJournal(onReplica, prefix);
    expect(await journal.closedIntervals(new Date(8.64e15), 0), 'the interval open on the replica').to.have.length(1);
    // Counts after the failover go into the intervals of the writers' clock from then on (the next one).
    await count(onReplica, 5, 7, new Date(Date.now() + 3_600_000));
    const promotedFolder = folderOn(onReplica);
    await promotedFolder.foldNow(true);
    await promotedFolder.stop();
    expect(await journal.pendingFolds(), 'nothing left to fold').to.deep.equal([]);
    expect(await figure(), 'the interval applied once, and the counts after the failover').to.equal(7);
  });
});
