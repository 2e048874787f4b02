/**
 * A second replica of a service beside the one the benchmark system started: the same built entry and
 * environment on a port of its own, logging into the run's folder; the gateway is then restarted with
 * both addresses (the system's restart keeps the added environment). Restarting one replica midway then
 * tells whether the system keeps answering while one is down, as a deployment with two would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { reservedPort } from '@pilot/testkit';
import { ROOT, type BenchSystem } from '../bench/system';

const GATEWAY_VARS: Record<string, string> = { allocation: 'ALLOCATION_URLS', tracking: 'TRACKING_URLS' };

export interface ExtraReplica {
  name: string;
  url: string;
  child: ChildProcess;
}

async function waitReady(url: string, child: ChildProcess, name: string, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}); see its log`);
    const ready = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) }).then((response) => response.ok, () => false);
    if (ready) return;
    if (Date.now() > deadline) throw new Error(`${name} not ready within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Starts `<service>-2` for each service and points the gateway at both replicas of each. */
export async function addSecondReplicas(system: BenchSystem, services: string[]): Promise<ExtraReplica[]> {
  const replicas: ExtraReplica[] = [];
  const gatewayEnv: NodeJS.ProcessEnv = {};
  for (const service of services) {
    const first = system.process(service);
    const port = await reservedPort();
    const url = `http://127.0.0.1:${port}`;
    const name = `${service}-2`;
    const log = createWriteStream(path.join(ROOT, '.data', 'bench', system.runId, `${name}.log`), { flags: 'a' });
    const child = spawn(process.execPath, [first.entry], { cwd: ROOT, env: { ...first.env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    replicas.push({ name, url, child });
    await waitReady(url, child, name);
    gatewayEnv[GATEWAY_VARS[service] as string] = `${first.url},${url}`;
  }
  await system.restart('gateway', gatewayEnv);
  return replicas;
}

export async function stopReplicas(replicas: ExtraReplica[]): Promise<void> {
  await Promise.all(
    replicas.map(async ({ child }) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }),
  );
}
