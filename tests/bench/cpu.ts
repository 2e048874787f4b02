/**
 * CPU time spent by each process during a phase (user + system, from /proc/<pid>/stat), per request: where
 * the work of a request goes. RabbitMQ and Redis are shared with whatever else runs on the machine, so
 * their share includes other people's work; FerretDB is the benchmark's own.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const TICKS_PER_SECOND = 100;

function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields[0] is field 3 (state): utime is field 14, stime field 15.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return Number.NaN;
  }
}

function pidOf(command: string): number | null {
  try {
    const found = execFileSync('pgrep', ['-o', '-x', command], { encoding: 'utf8' }).trim();
    return found ? Number(found) : null;
  } catch {
    return null;
  }
}

export function infrastructurePids(ferretdbPid: number | null): Record<string, number> {
  const pids: Record<string, number> = {};
  const redis = pidOf('redis-server');
  if (redis) pids.redis = redis;
  const beam = pidOf('beam.smp');
  if (beam) pids.rabbitmq = beam;
  if (ferretdbPid) pids.ferretdb = ferretdbPid;
  pids.bench = process.pid;
  return pids;
}

export type CpuSample = Record<string, number>;

export function sampleCpu(pids: Record<string, number>): CpuSample {
  return Object.fromEntries(Object.entries(pids).map(([name, pid]) => [name, cpuMs(pid)]));
}

/** CPU milliseconds per request of each process between two samples (processes that changed are left out). */
export function cpuPerRequest(before: CpuSample, after: CpuSample, requests: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, start] of Object.entries(before)) {
    const end = after[name];
    if (end === undefined || Number.isNaN(start) || Number.isNaN(end) || requests === 0) continue;
    out[name] = (end - start) / requests;
  }
  return out;
}
