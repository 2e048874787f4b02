/**
 * Redis with automatic failover: a private primary, a replica of it and a sentinel (redis-server in
 * sentinel mode) watching them; a client made from the Sentinel settings finds the primary through the
 * sentinel, and after the primary is killed and the sentinel promotes the replica, its writes go on there.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AOF_ALWAYS, OwnRedis, redisAnswers, reservedPort, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { createRedis, waitForRedis, type Redis } from '../../src/redis';

describe('redis through Sentinel (a private primary, replica and sentinel)', function () {
  this.timeout(90_000);
  const servers: OwnRedis[] = [];
  const clients: Redis[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'pilot-sentinel-'));
  let sentinel: ChildProcess | undefined;

  after(async function () {
    this.timeout(30_000);
    for (const client of clients) client.disconnect();
    sentinel?.kill('SIGKILL');
    for (const server of servers) await server.remove();
    rmSync(dir, { recursive: true, force: true });
  });

  it('follows a failover to the promoted replica', async () => {
    const primary = new OwnRedis(await reservedPort());
    servers.push(primary);
    await primary.start();
    const replica = new OwnRedis(await reservedPort(), [...AOF_ALWAYS, '--replicaof', '127.0.0.1', String(primary.port)]);
    servers.push(replica);
    await replica.start();
    const sentinelPort = await reservedPort();
    const config = join(dir, 'sentinel.conf');
    writeFileSync(
      config,
      [
        `port ${sentinelPort}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `sentinel monitor pilot-test 127.0.0.1 ${primary.port} 1`,
        'sentinel down-after-milliseconds pilot-test 1000',
        'sentinel failover-timeout pilot-test 10000',
        '',
      ].join('\n'),
    );
    sentinel = spawn('redis-server', [config, '--sentinel'], { stdio: 'ignore' });
    await waitFor(() => redisAnswers(sentinelPort), { timeoutMs: 15_000, message: 'the sentinel to answer' });

    const redis = createRedis({ url: 'redis://127.0.0.1:6379', sentinels: [{ host: '127.0.0.1', port: sentinelPort }], sentinelName: 'pilot-test' }, 'sentinel-test', { commandTimeoutMs: 5000 });
    clients.push(redis);
    await waitForRedis(redis);
    await redis.set('before', '1');
    expect(await redis.info('server')).to.contain(`tcp_port:${primary.port}`);
    await waitFor(async () => (await redis.wait(1, 1000)) === 1, { timeoutMs: 15_000, message: 'the replica in sync' });

    await primary.stop('SIGKILL');
    // The sentinel sees the primary down after a second, promotes the replica; the client reconnects there.
    const written = await waitFor(
      async () => {
        try {
          await redis.set('after', '1');
          return true;
        } catch {
          return null;
        }
      },
      { timeoutMs: 45_000, intervalMs: 250, message: 'a write after the failover' },
    );
    expect(written).to.equal(true);
    expect(await redis.info('server')).to.contain(`tcp_port:${replica.port}`);
    expect(await redis.get('before'), 'what the replica had received').to.equal('1');
  });
});
