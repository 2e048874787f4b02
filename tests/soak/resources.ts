/**
 * What the system uses, reported once a minute: CPU (share of one core over the minute, from the same
 * /proc reading as the benchmark) and the peak resident memory of each process over the minute (read every
 * few seconds: a garbage-collected heap is a saw-tooth, and one reading a minute lands anywhere on it), the document count of every
 * collection of the run's databases (the 64 shards of a sharded collection summed under its base name),
 * and Redis: the run's keys and the server's memory (Redis is shared with whatever else runs).
 */
import { readFileSync } from 'node:fs';
import type { Redis } from '../../packages/platform/src';
import { connectMongo, type Connection } from '../../packages/storage/src';
import { sampleCpu, type CpuSample } from '../bench/cpu';
import type { BenchSystem, ServiceName } from '../bench/system';

export interface ProcessUsage {
  /** Per cent of one core over the minute; NaN when the process was restarted within it. */
  cpuPercent: number;
  /** The highest resident memory read during the minute. */
  rssMb: number;
}

export function rssMbOf(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return Number(kb) / 1024;
  } catch {
    return Number.NaN;
  }
}

export class UsageSampler {
  private lastPids: Record<string, number>;
  private lastCpu: CpuSample;
  private lastAt = performance.now();
  private peaks: Record<string, number> = {};

  constructor(private readonly pids: () => Record<string, number>) {
    this.lastPids = pids();
    this.lastCpu = sampleCpu(this.lastPids);
  }

  /** Reads every process's resident memory, keeping the minute's peak (call it every few seconds). */
  notePeaks(): void {
    for (const [name, pid] of Object.entries(this.pids())) {
      const rss = rssMbOf(pid);
      if (Number.isFinite(rss)) this.peaks[name] = Math.max(this.peaks[name] ?? 0, rss);
    }
  }

  /** Usage of every process since the previous call. */
  sample(): Record<string, ProcessUsage> {
    this.notePeaks();
    const pids = this.pids();
    const cpu = sampleCpu(pids);
    const now = performance.now();
    const usage: Record<string, ProcessUsage> = {};
    for (const [name, pid] of Object.entries(pids)) {
      const sameProcess = this.lastPids[name] === pid;
      const spentMs = sameProcess ? (cpu[name] ?? Number.NaN) - (this.lastCpu[name] ?? Number.NaN) : Number.NaN;
      usage[name] = { cpuPercent: (100 * spentMs) / (now - this.lastAt), rssMb: this.peaks[name] ?? Number.NaN };
    }
    this.peaks = {};
    this.lastPids = pids;
    this.lastCpu = cpu;
    this.lastAt = now;
    return usage;
  }
}

const DATABASES: ServiceName[] = ['publisher-identity', 'campaign', 'allocation', 'tracking', 'placement'];

export class StoreSizes {
  private constructor(private readonly connections: Map<ServiceName, Connection>) {}

  static async open(system: BenchSystem): Promise<StoreSizes> {
    const connections = new Map<ServiceName, Connection>();
    for (const service of DATABASES) connections.set(service, await connectMongo({ url: system.mongoUrl, dbName: system.dbOf(service) }));
    return new StoreSizes(connections);
  }

  /** Documents by `<service>.<collection>`, shards (`<base>_<nn>`) summed under `<base>_*`. */
  async documents(): Promise<Record<string, number>> {
    const sizes: Record<string, number> = {};
    for (const [service, connection] of this.connections) {
      const db = connection.db!;
      for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) {
        const label = `${service}.${name.replace(/_\d{2}$/, '_*')}`;
        sizes[label] = (sizes[label] ?? 0) + (await db.collection(name).estimatedDocumentCount());
      }
    }
    return sizes;
  }

  async close(): Promise<void> {
    await Promise.all([...this.connections.values()].map((connection) => connection.close()));
  }
}

export interface RedisSize {
  runKeys: number;
  dbsize: number;
  usedMemoryMb: number;
}

export async function redisSize(redis: Redis, prefix: string): Promise<RedisSize> {
  let runKeys = 0;
  for await (const keys of redis.scanStream({ match: `${prefix}*`, count: 1000 }) as AsyncIterable<string[]>) runKeys += keys.length;
  const memory = await redis.info('memory');
  const usedBytes = Number(/used_memory:(\d+)/.exec(memory)?.[1]);
  return { runKeys, dbsize: await redis.dbsize(), usedMemoryMb: usedBytes / 1024 / 1024 };
}
