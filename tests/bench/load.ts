/**
 * Load through the gateway with autocannon (keep-alive connections, no pipelining), and what is printed
 * about it. Every phase builds each request in `setupRequest` (the baseline too), so the load generator,
 * which shares the machine, costs the same in every phase.
 */
import autocannon from 'autocannon';
import { sampleCpu } from './cpu';
import { costPerOperation, costSnapshot } from './per-operation';
import type { BenchSystem } from './system';

export interface LoadSettings {
  connections: number;
  durationSeconds: number;
  warmupSeconds: number;
}

export interface PhaseRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Handed to onResponse with this request's answer (for example the key the request carried). */
  tag?: string;
}

export interface PhaseResult {
  name: string;
  requestsPerSecond: number;
  p50: number;
  p99: number;
  total: number;
  statuses: Record<string, number>;
  /** Connection errors, timeouts and any status outside `expected` (429 included). */
  errors: number;
  rateLimited: number;
  /** CPU milliseconds per request, by process. */
  cpu: Record<string, number>;
  /** Store commands per request, by process and command name (when measured with the system). */
  commands?: Record<string, Record<string, number>>;
}

export interface Phase {
  name: string;
  url: string;
  expected: number[];
  next(): PhaseRequest;
  onResponse?(status: number, body: string, tag: string | undefined): void;
}

async function run(phase: Phase, durationSeconds: number, connections: number, capture: boolean): Promise<autocannon.Result> {
  const template: autocannon.Request = {
    method: 'GET',
    path: '/',
    // One request at a time per connection (no pipelining): the connection's context carries the tag.
    setupRequest: (request, context: { tag?: string }) => {
      const next = phase.next();
      context.tag = next.tag;
      return { ...request, method: next.method, path: next.path, headers: next.headers, body: next.body };
    },
  };
  if (capture && phase.onResponse) {
    const onResponse = phase.onResponse.bind(phase);
    template.onResponse = (status, body, context: { tag?: string }) => onResponse(status, body, context.tag);
  }
  return autocannon({
    url: phase.url,
    connections,
    pipelining: 1,
    duration: durationSeconds,
    timeout: 10,
    requests: [template],
  });
}

const COUNT_INTERVAL_MS = 60_000;

/**
 * Waits, when needed, so that the phase (warm-up included) ends before the counting interval it starts in
 * closes: tracking folds each closed minute into the totals, and a phase that crossed a minute would measure
 * its own path plus the fold of its first seconds (that cost is per distinct grain, not per request, and is
 * reported on its own: the counting phase and docs/operations.md's capacity figures).
 */
async function startWithinOneInterval(settings: LoadSettings): Promise<void> {
  const needMs = (settings.warmupSeconds + settings.durationSeconds + 2) * 1000;
  const intoInterval = Date.now() % COUNT_INTERVAL_MS;
  if (intoInterval + needMs <= COUNT_INTERVAL_MS || needMs > COUNT_INTERVAL_MS) return;
  await new Promise((resolve) => setTimeout(resolve, COUNT_INTERVAL_MS - intoInterval + 500));
}

/** Runs a phase; with `system`, the store commands per request of its services are counted too (per-operation.ts). */
export async function measure(phase: Phase, settings: LoadSettings, pids: () => Record<string, number>, system?: BenchSystem): Promise<PhaseResult> {
  await startWithinOneInterval(settings);
  if (settings.warmupSeconds > 0) await run(phase, settings.warmupSeconds, settings.connections, true);
  const watched = pids();
  const snapshot = async () => (system ? costSnapshot(system, watched) : { cpu: sampleCpu(watched), commands: {}, at: 0 });
  const before = await snapshot();
  const result = await run(phase, settings.durationSeconds, settings.connections, true);
  const after = await snapshot();
  const statuses: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statuses[code] = stat.count ?? 0;
  let unexpected = 0;
  for (const [code, count] of Object.entries(statuses)) if (!phase.expected.includes(Number(code))) unexpected += count;
  const total = Object.values(statuses).reduce((sum, count) => sum + count, 0);
  return {
    name: phase.name,
    requestsPerSecond: total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    total,
    statuses,
    errors: unexpected + result.errors,
    rateLimited: statuses['429'] ?? 0,
    ...costPerOperation(before, after, total),
  };
}

export function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank] as number;
}
