/**
 * A TCP relay in front of one piece of infrastructure (Redis, RabbitMQ, MongoDB), so a test can see what a
 * service does while it is unreachable or hung, and that it recovers by itself:
 * - cut() closes the listener and destroys every open connection, as a network partition would;
 * - open() listens again on the same port (the first call picks a free one);
 * - freeze() keeps connections up but passes nothing on, as a hung server would;
 * - delayAnswers(ms) passes everything on, the server's answers each `ms` late, as a slow network would.
 */
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

const DEFAULT_PORTS: Record<string, number> = { 'redis:': 6379, 'amqp:': 5672, 'mongodb:': 27017 };

export class TcpRelay {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private readonly target: URL;
  private frozen = false;
  private answerDelayMs = 0;
  port = 0;

  /** `targetUrl`: the URL the service would use without the relay. */
  constructor(targetUrl: string) {
    this.target = new URL(targetUrl);
  }

  /** The target URL (scheme, credentials, path, query) pointing at the relay instead. */
  get url(): string {
    const through = new URL(this.target);
    through.hostname = '127.0.0.1';
    through.port = String(this.port);
    return through.toString();
  }

  get isOpen(): boolean {
    return this.server !== null;
  }

  async open(): Promise<void> {
    this.frozen = false;
    const targetPort = Number(this.target.port) || (DEFAULT_PORTS[this.target.protocol] ?? 0);
    const server = createServer((client) => {
      const upstream = connect(targetPort, this.target.hostname);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        this.sockets.delete(client);
        this.sockets.delete(upstream);
      };
      for (const [from, to] of [
        [client, upstream],
        [upstream, client],
      ] as const) {
        this.sockets.add(from);
        from.on('error', drop).on('close', drop);
        const answers = from === upstream;
        from.on('data', (chunk) => {
          if (this.frozen) return;
          // Timers of one length fire in the order they were set: the answers keep their order.
          if (answers && this.answerDelayMs > 0) setTimeout(() => to.writable && to.write(chunk), this.answerDelayMs);
          else to.write(chunk);
        });
      }
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  freeze(): void {
    this.frozen = true;
  }

  /** From now on the server's answers reach the client `ms` late (0: at once again). */
  delayAnswers(ms: number): void {
    this.answerDelayMs = ms;
  }
}
