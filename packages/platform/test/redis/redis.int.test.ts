import { isInfrastructureError } from '../../src/infrastructure-errors';
import { reservedPort, TcpRelay, testInfra } from '@pilot/testkit';
import { expect } from 'chai';
import { createRedis, pingRedis, waitForRedis, type Redis } from '../../src/redis';


describe('redis (real Redis)', () => {
  const infra = testInfra();
  const clients: Redis[] = [];
  const client = (url: string) => {
    const redis = createRedis(url, `redis-test-${infra.runId}`);
    clients.push(redis);
    return redis;
  };
  after(() => {
    for (const redis of clients) redis.disconnect();
  });

  it('connects, answers the readiness ping and reads back what it writes', async () => {
    const redis = client(infra.redisUrl);
    await waitForRedis(redis, 5000);
    await pingRedis(redis);
    const key = `${infra.redisPrefix}probe`;
    await redis.set(key, 'value', 'EX', 30);
    expect(await redis.get(key)).to.equal('value');
    expect(await redis.client('GETNAME')).to.equal(`redis-test-${infra.runId}`);
    await redis.del(key);
  });

  it('fails fast, without queueing, against a closed port', async () => {
    const redis = client(`redis://127.0.0.1:${await reservedPort()}`);
    let failure: unknown;
    await pingRedis(redis).catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(Error);
    expect(isInfrastructureError(failure), String(failure)).to.equal(true); // so HTTP answers 503, consumers retry
    // Refused at once because nothing is queued while disconnected, not after waiting out a command timeout.
    expect((failure as Error).message).to.match(/enableOfflineQueue/);
  });

  it('gives up waiting for readiness at the deadline', async () => {
    const redis = client(`redis://127.0.0.1:${await reservedPort()}`);
    let failure: unknown;
    await waitForRedis(redis, 300).catch((error: unknown) => (failure = error));
    expect((failure as Error).message).to.equal('Redis not ready within 300 ms');
  });

  it('fails calls fast while Redis is unreachable and reconnects by itself when it is back', async function () {
    this.timeout(20_000);
    const proxy = new TcpRelay(infra.redisUrl);
    await proxy.open();
    try {
      const redis = client(proxy.url);
      await waitForRedis(redis, 5000);
      await pingRedis(redis);

      await proxy.cut();
      let failure: unknown;
      await pingRedis(redis).catch((error: unknown) => (failure = error));
      expect(isInfrastructureError(failure), String(failure)).to.equal(true);
      // Fast means ended by the client itself, never by waiting for Redis to return: refused while
      // disconnected (nothing is queued), the connection seen closed, the one retry spent, or at worst the
      // client's own one-second command deadline.
      expect((failure as Error).message).to.match(/enableOfflineQueue|Connection is closed|max retries per request|Command timed out/);
      expect(redis.options).to.include({ enableOfflineQueue: false, maxRetriesPerRequest: 1, commandTimeout: 1000 });

      await proxy.open();
      await waitForRedis(redis, 10_000);
      await pingRedis(redis);
    } finally {
      await proxy.cut();
    }
  });

  it('times out a command that gets no answer (a hung Redis) within its deadline, as an infrastructure fault', async function () {
    this.timeout(20_000);
    const proxy = new TcpRelay(infra.redisUrl);
    await proxy.open();
    try {
      const redis = client(proxy.url);
      await waitForRedis(redis, 5000);
      proxy.freeze();
      let failure: unknown;
      await pingRedis(redis).catch((error: unknown) => (failure = error));
      // Ended by the client's own command deadline (one second), not by anything Redis did.
      expect((failure as Error).message).to.equal('Command timed out');
      expect(redis.options.commandTimeout).to.equal(1000);
      expect(isInfrastructureError(failure), String(failure)).to.equal(true);
    } finally {
      await proxy.cut();
    }
  });
});
