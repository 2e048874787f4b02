import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { testInfra } from '@pilot/testkit';
import { expect } from 'chai';
import { createRedis, luaCommands, waitForRedis, type Redis } from '../../src/redis';

interface Replies {
  swap: [string | null, string | null];
  count: number;
  doubled: number;
}

describe('luaCommands: .lua scripts as typed commands', () => {
  const infra = testInfra();
  let dir: string;
  let redis: Redis;

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'lua-commands-'));
    writeFileSync(path.join(dir, 'swap.lua'), "local a = redis.call('GET', KEYS[1])\nredis.call('SET', KEYS[1], ARGV[1])\nreturn {a, ARGV[1]}\n");
    writeFileSync(path.join(dir, 'count.lua'), 'return #KEYS * 100 + #ARGV\n');
    writeFileSync(path.join(dir, 'double.lua'), '-- A shared function, not a script.\nlocal function double(n)\n  return n * 2\nend\n');
    writeFileSync(path.join(dir, 'doubled.lua'), '#!lua\n-- uses: double.lua\nreturn double(tonumber(ARGV[1]))\n');
    redis = createRedis(infra.redisUrl, 'lua-commands-test');
    await waitForRedis(redis);
  });
  after(async () => {
    await redis.del(`${infra.redisPrefix}lua:a`);
    redis.disconnect();
    rmSync(dir, { recursive: true, force: true });
  });

  const define = () =>
    luaCommands<Replies>(dir, 'luaCommandsTest_', {
      swap: { file: 'swap.lua', numberOfKeys: 1 },
      count: { file: 'count.lua', numberOfKeys: 'first argument' },
      doubled: { file: 'doubled.lua', numberOfKeys: 0 },
    });

  it('runs each script with its KEYS then ARGV, a fixed number of KEYS or as many as the call says', async () => {
    const commands = define()(redis);
    const key = `${infra.redisPrefix}lua:a`;
    expect(await commands.swap(key, 'one')).to.deep.equal([null, 'one']);
    expect(await commands.swap(key, 'two')).to.deep.equal(['one', 'two']);
    expect(await commands.count(3, 'k1', 'k2', 'k3', 'a')).to.equal(301);
    expect(await commands.count(0, 'a', 'b')).to.equal(2);
  });

  it('defines the commands once per client: what was defined before and again both work', async () => {
    const first = define()(redis);
    const again = define()(redis);
    expect(await again.count(1, 'k', 'a')).to.equal(101);
    expect(await first.count(1, 'k', 'a')).to.equal(101);
  });

  it('puts the file a `-- uses:` line names in its place, after the shebang, before the code that calls it', async () => {
    expect(await define()(redis).doubled(21)).to.equal(42);
  });

  it('fails when a script file is missing, before any client uses it', () => {
    expect(() => luaCommands<{ gone: number }>(dir, 'luaCommandsTest_', { gone: { file: 'gone.lua', numberOfKeys: 0 } })).to.throw(/gone\.lua/);
  });
});
