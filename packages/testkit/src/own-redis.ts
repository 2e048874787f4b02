/**
 * A redis-server of the test's own, never the machine's shared one: a free port, a temporary directory,
 * and the persistence production runs with (AOF, fsync before every write is acknowledged). Stopped with
 * SIGTERM or SIGKILL and started again on the same port and directory, it comes back with what its AOF
 * holds. `remove` stops it and deletes the directory; a test process that dies takes it along.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from './wait-for';

export const AOF_ALWAYS = ['--appendonly', 'yes', '--appendfsync', 'always'];

/** True when the server on `port` answers PING with PONG (not LOADING, not refused). */
export function redisAnswers(port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    const finish = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      done(ok);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on('error', () => finish(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) finish(reply.startsWith('+PONG'));
    });
  });
}

export class OwnRedis {
  readonly dir = mkdtempSync(join(tmpdir(), 'pilot-redis-'));
  private child: ChildProcess | null = null;
  private exited: Promise<number | null> = Promise.resolve(null);
  /** The last 20,000 characters the server wrote. */
  output = '';
  private readonly killOnExit = () => this.child?.kill('SIGKILL');

  constructor(
    readonly port: number,
    private readonly persistence: string[] = AOF_ALWAYS,
  ) {
    process.once('exit', this.killOnExit);
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== null;
  }

  /** Starts the server on its port and directory and waits until it answers PING (its AOF loaded). */
  async start(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', '', '--daemonize', 'no', ...this.persistence];
    const child = spawn('redis-server', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString()).slice(-20_000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.exited = new Promise((done) => child.once('exit', (code) => done(code)));
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`redis-server exited with ${child.exitCode}: ${this.output.slice(-2000)}`);
        return redisAnswers(this.port);
      },
      { timeoutMs: 15_000, intervalMs: 5, message: `redis-server on ${this.port} to answer` },
    );
  }

  /** Sends `signal` and waits until the process has gone (its port closed with it). */
  async stop(signal: 'SIGTERM' | 'SIGKILL'): Promise<void> {
    const child = this.child;
    if (!child) return;
    child.kill(signal);
    await this.exited;
    this.child = null;
  }

  /** For after hooks: stopped, whatever its state, and its directory deleted. */
  async remove(): Promise<void> {
    if (this.child) {
      const stopping = this.stop('SIGTERM');
      const timer = setTimeout(() => this.child?.kill('SIGKILL'), 10_000);
      await stopping;
      clearTimeout(timer);
    }
    process.removeListener('exit', this.killOnExit);
    rmSync(this.dir, { recursive: true, force: true });
  }
}
