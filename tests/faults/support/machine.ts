/**
 * The machine's infrastructure as fault tests drive it: RabbitMQ's application stopped and started with
 * rabbitmqctl, and a FerretDB of the test's own (scripts/infra.sh) killed with SIGKILL and started again.
 * Every helper waits on a signal (the AMQP handshake, the port) with a deadline.
 */
import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from '@pilot/testkit';

const run = promisify(execFile);
export const REPO_ROOT = resolve(__dirname, '../../..');

/** True when a connection to host:port gets the broker's AMQP Connection.Start frame. */
export function amqpAnswers(port = 5672, host = '127.0.0.1', timeoutMs = 1000): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, host);
    const finish = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      done(ok);
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on('error', () => finish(false));
    socket.on('close', () => finish(false));
    // AMQP 0-9-1 protocol header; a running broker answers with a method frame (type 1) Connection.Start.
    socket.on('connect', () => socket.write(Buffer.from([0x41, 0x4d, 0x51, 0x50, 0, 0, 9, 1])));
    socket.once('data', (chunk) => finish(chunk[0] === 1));
  });
}

export function portOpen(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((done) => {
    const socket = connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      done(true);
    });
    socket.once('error', () => done(false));
  });
}

export async function rabbitStopApp(): Promise<void> {
  await run('rabbitmqctl', ['stop_app'], { timeout: 60_000 });
}

/** Starts RabbitMQ's application and waits until port 5672 speaks AMQP again. Safe to call when running. */
export async function rabbitStartApp(): Promise<void> {
  await run('rabbitmqctl', ['start_app'], { timeout: 60_000 });
  await waitFor(() => amqpAnswers(), { timeoutMs: 60_000, intervalMs: 200, message: 'RabbitMQ to accept AMQP on 5672' });
}

/** A FerretDB of the test's own, started with scripts/infra.sh (data under .data/<name>). */
export class OwnFerret {
  constructor(
    readonly name: string,
    readonly port: number,
  ) {}

  /** Starts it (or finds it running) and returns its MONGO_URL. */
  async up(): Promise<string> {
    const env = { ...process.env };
    delete env.MONGO_URL; // infra.sh would otherwise just echo the shared server's URL
    const { stdout } = await run('bash', ['scripts/infra.sh', 'up', this.name, String(this.port)], { cwd: REPO_ROOT, env, timeout: 120_000 });
    const url = stdout.trim().split('\n').pop() ?? '';
    if (!url.startsWith('mongodb://')) throw new Error(`infra.sh up ${this.name} printed ${stdout}`);
    return url;
  }

  async down(): Promise<void> {
    await run('bash', ['scripts/infra.sh', 'down', this.name], { cwd: REPO_ROOT, timeout: 60_000 });
  }

  /** Stops it and removes its data, so runs do not pile up databases. */
  async remove(): Promise<void> {
    await this.down();
    rmSync(resolve(REPO_ROOT, '.data', this.name), { recursive: true, force: true });
  }

  pid(): number {
    return Number(readFileSync(resolve(REPO_ROOT, '.data', this.name, 'ferretdb.pid'), 'utf8').trim());
  }

  /** SIGKILL, then wait until the port is closed. */
  async kill(): Promise<void> {
    process.kill(this.pid(), 'SIGKILL');
    await waitFor(async () => !(await portOpen(this.port)), { timeoutMs: 10_000, message: `FerretDB ${this.name} to die` });
  }
}
