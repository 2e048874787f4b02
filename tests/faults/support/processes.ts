/**
 * A service replica as a real child process (node + tsx on the service's src/main.ts, as
 * scripts/run-system.mjs runs dist/main.js), so tests can send it real signals.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { waitFor } from '@pilot/testkit';
import type { ServiceName } from '../../e2e/support/system';
import { REPO_ROOT } from './machine';

export class ChildService {
  private child: ChildProcess | null = null;
  private exited: Promise<number | null> = Promise.resolve(null);
  /** The last 20,000 characters the process wrote (for error messages). */
  output = '';
  /** Everything the process wrote, across restarts (for checks on its logs). */
  log = '';

  constructor(
    readonly service: ServiceName,
    readonly port: number,
    private readonly env: NodeJS.ProcessEnv,
    private readonly logLevel = process.env.TEST_LOG_LEVEL ?? 'warn',
  ) {}

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== null;
  }

  /** Starts the process and waits until its /readyz answers 200. */
  async start(): Promise<void> {
    const child = spawn(process.execPath, ['--require', 'tsx/cjs', resolve(REPO_ROOT, 'services', this.service, 'src/main.ts')], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', ...this.env, LOG_LEVEL: this.logLevel },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child = child;
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-20_000);
      if (this.log.length < 20_000_000) this.log += chunk.toString();
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.exited = new Promise((done) => child.once('exit', (code) => done(code)));
    void this.exited.then(() => {
      if (this.child === child) this.child = null;
    });
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`${this.service} exited with ${child.exitCode}: ${this.output.slice(-2000)}`);
        return (await fetch(`${this.url}/readyz`)).ok;
      },
      { timeoutMs: 60_000, intervalMs: 100, message: `${this.service} on ${this.port} to be ready` },
    );
  }

  /** Sends `signal` and resolves with the exit code once the process has gone. */
  async signal(signal: 'SIGTERM' | 'SIGKILL'): Promise<number | null> {
    const child = this.child;
    if (!child) return null;
    child.kill(signal);
    const code = await this.exited;
    this.child = null;
    return code;
  }

  /** For after hooks: whatever state it is in, it is gone afterwards. */
  async ensureStopped(): Promise<void> {
    if (!this.child) return;
    const stopping = this.signal('SIGTERM');
    const timer = setTimeout(() => this.child?.kill('SIGKILL'), 15_000);
    await stopping;
    clearTimeout(timer);
  }
}
