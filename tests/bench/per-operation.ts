/**
 * What an operation costs, per process: CPU milliseconds (cpu.ts, from /proc) and store commands (each
 * service's `pilot_store_commands_total{command}` on its /metrics, counted by the driver's command
 * monitoring). Take a snapshot before and after a phase, divide by the operations it made:
 *
 *   const before = await costSnapshot(system, pids());
 *   ... the phase ...
 *   const cost = costPerOperation(before, await costSnapshot(system, pids()), operations);
 *   report.push(...costLines('per pause or activate', cost));
 */
import { performance } from 'node:perf_hooks';
import { sampleCpu, cpuPerRequest, type CpuSample } from './cpu';
import { SERVICE_NAMES, type BenchSystem } from './system';

/** Store commands by process, then by command name. */
type CommandCounts = Record<string, Record<string, number>>;

export interface CostSnapshot {
  cpu: CpuSample;
  commands: CommandCounts;
  /** performance.now() when taken. */
  at: number;
}

/** CPU ms a second each process spends with nothing asked of it (relays, probes, the folder, timers). */
export type IdleRates = Record<string, number>;

export interface OperationCost {
  /** CPU ms per operation, by process (infrastructure included: redis, rabbitmq, ferretdb, bench). */
  cpu: Record<string, number>;
  /** Store commands per operation, by process and command name (only those that sent any). */
  commands: CommandCounts;
}

const COUNTER = /^pilot_store_commands_total\{([^}]*)\}\s+(\S+)/;

/** The store commands a service has sent since it started, by command name (none when it has no store). */
async function commandsOf(url: string): Promise<Record<string, number>> {
  try {
    const text = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) })).text();
    const counts: Record<string, number> = {};
    for (const line of text.split('\n')) {
      const match = COUNTER.exec(line);
      const command = match ? /command="([^"]+)"/.exec(match[1] ?? '')?.[1] : undefined;
      if (match && command) counts[command] = (counts[command] ?? 0) + Number(match[2]);
    }
    return counts;
  } catch {
    return {};
  }
}

/** CPU of every process and the store commands of every service, now. */
export async function costSnapshot(system: BenchSystem, pids: Record<string, number>): Promise<CostSnapshot> {
  const cpu = sampleCpu(pids);
  const running = SERVICE_NAMES.filter((name) => name in system.pids());
  const counts = await Promise.all(running.map((name) => commandsOf(system.process(name).url)));
  return { cpu, commands: Object.fromEntries(running.map((name, index) => [name, counts[index] ?? {}])), at: performance.now() };
}

/**
 * Each process's CPU a second over `seconds` of nothing asked (after the work before has settled): what a
 * phase of sequential calls would otherwise count per call, the more the slower the calls.
 */
export async function idleRates(system: BenchSystem, pids: Record<string, number>, seconds: number): Promise<IdleRates> {
  const before = await costSnapshot(system, pids);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const after = await costSnapshot(system, pids);
  const elapsed = (after.at - before.at) / 1000;
  return Object.fromEntries(Object.entries(cpuPerRequest(before.cpu, after.cpu, 1)).map(([name, ms]) => [name, Math.max(0, ms / elapsed)]));
}

/** The cost per operation between two snapshots; with `idle`, each process's idle CPU over that time is taken off first. */
export function costPerOperation(before: CostSnapshot, after: CostSnapshot, operations: number, idle?: IdleRates): OperationCost {
  const commands: CommandCounts = {};
  for (const [name, counts] of Object.entries(after.commands)) {
    for (const [command, count] of Object.entries(counts)) {
      const made = count - (before.commands[name]?.[command] ?? 0);
      if (made > 0 && operations > 0) (commands[name] ??= {})[command] = made / operations;
    }
  }
  const cpu = cpuPerRequest(before.cpu, after.cpu, operations);
  if (idle) {
    const seconds = (after.at - before.at) / 1000;
    for (const name of Object.keys(cpu)) cpu[name] = Math.max(0, (cpu[name] as number) - ((idle[name] ?? 0) * seconds) / operations);
  }
  return { cpu, commands };
}

const INFRASTRUCTURE = new Set(['redis', 'rabbitmq', 'ferretdb', 'bench']);

/** CPU ms per operation of our processes together (the services and gateways, not the infrastructure). */
export function ourCpu(cost: OperationCost, only?: readonly string[]): number {
  return Object.entries(cost.cpu)
    .filter(([name]) => !INFRASTRUCTURE.has(name) && (!only || only.includes(name)))
    .reduce((sum, [, value]) => sum + value, 0);
}

/** Store commands per operation, all processes together. */
export function commandsPerOperation(cost: OperationCost): number {
  return Object.values(cost.commands).reduce((sum, counts) => sum + Object.values(counts).reduce((a, b) => a + b, 0), 0);
}

const fixed = (value: number, digits = 2) => value.toFixed(digits);

/** Store commands per operation as text: `campaign find 1.00 findAndModify 1.00; notification update 1.00`. */
export function commandsText(commands: CommandCounts): string {
  const text = Object.entries(commands)
    .map(([name, counts]) => `${name} ${Object.entries(counts).map(([command, count]) => `${command} ${fixed(count)}`).join(' ')}`)
    .join('; ');
  return text || 'none';
}

/** CPU ms per operation by process as text, the most first: `tracking 1.20, gateway 0.80, ferretdb 2.10`. */
export function cpuText(cost: OperationCost): string {
  return Object.entries(cost.cpu)
    .filter(([, value]) => value >= 0.005)
    .sort(([, a], [, b]) => b - a)
    .map(([name, value]) => `${name} ${fixed(value)}`)
    .join(', ');
}

/**
 * Two report lines: CPU ms per operation by process (and the sum of `involved`, the processes the operation
 * runs through), and store commands per operation by process and command.
 */
export function costLines(what: string, cost: OperationCost, involved?: readonly string[]): string[] {
  return [
    `CPU ms ${what}: ${cpuText(cost)}${involved ? ` (${involved.join(' + ')}: ${fixed(ourCpu(cost, involved))})` : ''}`,
    `store commands ${what}: ${commandsText(cost.commands)} (in all ${fixed(commandsPerOperation(cost))})`,
  ];
}
