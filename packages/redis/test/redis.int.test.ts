import { createServer, connect, type Server, type Socket } from 'node:net';
import { isInfrastructureError } from '@pilot/faults';
import { freePort, testInfra } from '@pilot/testkit';
import { expect } from 'chai';
import { createRedis, pingRedis, waitForRedis, type Redis } from '../src';

/** A TCP proxy in front of the real Redis that the test can take down and bring back. */
async function outageProxy(target: URL): Promise<{ url: string; down(): Promise<void>; up(): Promise<void>; freeze(): void }> {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let frozen = false;
  let server: Server | undefined;
  const up = () =>
    new Promise<void>((resolve) => {
      server = createServer((client) => {
        const upstream = connect(Number(target.port || 6379), target.hostname);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('error', () => undefined);
          socket.on('close', () => sockets.delete(socket));
        }
        client.on('data', (chunk) => frozen || upstream.write(chunk));
        upstream.on('data', (chunk) => frozen || client.write(chunk));
      });
      server.listen(port, '127.0.0.1', resolve);
    });
  const down = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      if (server) server.close(() => resolve());
      else resolve();
    });
  await up();
  return {
    url: `redis://127.0.0.1:${port}`,
    down: async () => {
      frozen = false;
      await down();
    },
    up,
    freeze: () => void (frozen = true),
  };
}

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
    const redis = client(`redis://127.0.0.1:${await freePort()}`);
    const started = Date.now();
    let failure: unknown;
    await pingRedis(redis).catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(Error);
    expect(isInfrastructureError(failure), String(failure)).to.equal(true); // so HTTP answers 503, consumers retry
    expect(Date.now() - started).to.be.below(1000);
  });

  it('gives up waiting for readiness at the deadline', async () => {
    const redis = client(`redis://127.0.0.1:${await freePort()}`);
    let failure: unknown;
    await waitForRedis(redis, 300).catch((error: unknown) => (failure = error));
    expect((failure as Error).message).to.equal('Redis not ready within 300 ms');
  });

  it('fails calls fast while Redis is unreachable and reconnects by itself when it is back', async function () {
    this.timeout(20_000);
    const proxy = await outageProxy(new URL(infra.redisUrl));
    try {
      const redis = client(proxy.url);
      await waitForRedis(redis, 5000);
      await pingRedis(redis);

      await proxy.down();
      const started = Date.now();
      let failure: unknown;
      await pingRedis(redis).catch((error: unknown) => (failure = error));
      expect(isInfrastructureError(failure), String(failure)).to.equal(true);
      expect(Date.now() - started).to.be.below(1500);

      await proxy.up();
      await waitForRedis(redis, 10_000);
      await pingRedis(redis);
    } finally {
      await proxy.down();
    }
  });

  it('times out a command that gets no answer (a hung Redis) within its deadline, as an infrastructure fault', async function () {
    this.timeout(20_000);
    const proxy = await outageProxy(new URL(infra.redisUrl));
    try {
      const redis = client(proxy.url);
      await waitForRedis(redis, 5000);
      proxy.freeze();
      const started = Date.now();
      let failure: unknown;
      await pingRedis(redis).catch((error: unknown) => (failure = error));
      expect(Date.now() - started).to.be.below(2000);
      expect(isInfrastructureError(failure), String(failure)).to.equal(true);
    } finally {
      await proxy.down();
    }
  });
});
