#!/usr/bin/env node
// Deletes the RabbitMQ queues and exchanges, and the Redis keys, that test runs leave behind (names start
// with the test kit's run prefix `t_<time>_<hex>`). Durable quorum queues outlive their test; without this,
// every run adds some.
// Used by scripts/test.sh before and after the whole suite. Needs rabbitmqctl (local broker) to list names.
// PURGE_MIN_AGE_MINUTES=n spares the runs younger than n minutes (test runs going on beside this one).
const { execFileSync } = require('node:child_process');
const path = require('node:path');

const amqplib = require(require.resolve('amqplib', { paths: [path.join(__dirname, '..', 'packages', 'messaging')] }));
const { Redis } = require(require.resolve('ioredis', { paths: [path.join(__dirname, '..', 'packages', 'platform')] }));
const TEST_PREFIX = /^(?:pilot\.)?t_([a-z0-9]+)_[a-f0-9]{6}/;
const minAgeMs = Number(process.env.PURGE_MIN_AGE_MINUTES ?? 0) * 60_000;

/** A name of a test run (its time is base 36 milliseconds) old enough to remove. */
function isOldTestName(name, prefixed) {
  const match = TEST_PREFIX.exec(name);
  if (!match || (prefixed && !name.startsWith('pilot.'))) return false;
  return Date.now() - parseInt(match[1], 36) >= minAgeMs;
}

function list(kind) {
  try {
    return execFileSync('rabbitmqctl', [`list_${kind}`, '-q', '--no-table-headers', 'name'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .split('\n')
      .map((line) => line.trim())
      .filter((name) => isOldTestName(name, true));
  } catch {
    return null;
  }
}

async function purgeRedis() {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1 });
  await redis.connect();
  let removed = 0;
  const stream = redis.scanStream({ match: 't_*_*:*', count: 1000 });
  for await (const keys of stream) {
    const old = keys.filter((key) => isOldTestName(key, false));
    if (old.length > 0) removed += await redis.unlink(...old);
  }
  await redis.quit();
  console.error(`purge-test-broker: removed ${removed} Redis keys of earlier test runs`);
}

async function main() {
  await purgeRedis().catch((error) => console.error(`purge-test-broker: Redis: ${error.message}`));
  const queues = list('queues');
  const exchanges = list('exchanges');
  if (queues === null || exchanges === null) {
    console.error('purge-test-broker: rabbitmqctl is not available here; leftover test queues were not removed');
    return;
  }
  const connection = await amqplib.connect(process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672');
  const channel = await connection.createChannel();
  for (const queue of queues) await channel.deleteQueue(queue);
  for (const exchange of exchanges) await channel.deleteExchange(exchange);
  await connection.close();
  console.error(`purge-test-broker: removed ${queues.length} queues and ${exchanges.length} exchanges of earlier test runs`);
}

main().catch((error) => {
  console.error(`purge-test-broker: ${error.message}`);
});
