/**
 * Removes what one benchmark run created: its databases, its Redis keys, and its RabbitMQ queues and
 * exchanges (durable quorum queues outlive the processes). Only names of this run are touched.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { connectMongo } from '../../packages/storage/src';
import { createRedis, waitForRedis } from '../../packages/platform/src';
import { ROOT, type BenchSystem, type ServiceName } from './system';

const SERVICES: ServiceName[] = ['publisher-identity', 'campaign', 'allocation', 'tracking', 'placement', 'notification', 'web'];

interface AmqpChannel {
  deleteQueue(name: string): Promise<unknown>;
  deleteExchange(name: string): Promise<unknown>;
}
interface AmqpConnection {
  createChannel(): Promise<AmqpChannel>;
  close(): Promise<void>;
}

function brokerNames(kind: 'queues' | 'exchanges', prefix: string): string[] {
  try {
    return execFileSync('rabbitmqctl', [`list_${kind}`, '-q', '--no-table-headers', 'name'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
      .split('\n')
      .map((line) => line.trim())
      .filter((name) => name.startsWith(prefix));
  } catch {
    return [];
  }
}

/** A database still busy (FerretDB finishing an update its client no longer waits for) is left after this. */
const DROP_TIMEOUT_MS = 30_000;

export async function cleanUp(system: BenchSystem): Promise<void> {
  for (const service of SERVICES) {
    // The drop is given up on below, after DROP_TIMEOUT_MS; the connection's own operation deadline must not come first.
    const connection = await connectMongo({ url: system.mongoUrl, dbName: system.dbOf(service), operationTimeoutMS: 2 * DROP_TIMEOUT_MS });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), DROP_TIMEOUT_MS);
    });
    const dropped = await Promise.race([connection.db!.dropDatabase().then(() => 'dropped' as const), timedOut]);
    clearTimeout(timer);
    if (dropped === 'timeout') process.stderr.write(`[bench] database ${system.dbOf(service)} not dropped within ${DROP_TIMEOUT_MS / 1000} s; left in place\n`);
    await connection.close(true);
  }

  const redis = createRedis(system.redisUrl, 'bench-cleanup');
  await waitForRedis(redis);
  for await (const keys of redis.scanStream({ match: `${system.redisPrefix}*`, count: 1000 }) as AsyncIterable<string[]>) {
    if (keys.length > 0) await redis.unlink(...keys);
  }
  redis.disconnect();

  const queues = brokerNames('queues', system.exchange);
  const exchanges = brokerNames('exchanges', system.exchange);
  if (queues.length + exchanges.length === 0) return;
  const load = createRequire(path.join(ROOT, 'packages', 'messaging', 'package.json'));
  const amqplib = load('amqplib') as { connect(url: string): Promise<AmqpConnection> };
  const connection = await amqplib.connect(system.amqpUrl);
  const channel = await connection.createChannel();
  for (const queue of queues) await channel.deleteQueue(queue);
  for (const exchange of exchanges) await channel.deleteExchange(exchange);
  await connection.close();
}
