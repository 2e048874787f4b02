/**
 * Runs a service's entry point (`services/<name>/src/main.ts`, through tsx) as its own process with
 * exactly the given environment (plus PATH) and waits for it to exit: for the tests that a service refuses
 * to start without a setting. A process still running after `timeoutMs` is killed and the call fails.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');

export function runServiceMain(service: string, env: Record<string, string>, timeoutMs = 20_000): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', path.join(ROOT, 'services', service, 'src', 'main.ts')], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${service} did not stop within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}
