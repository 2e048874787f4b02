/**
 * A TCP relay in front of one piece of infrastructure (Redis, RabbitMQ, MongoDB), so a test can see what a
 * service does while it is unreachable or hung, and that it recovers by itself:
 * - cut() closes the listener and destroys every open connection, as a network partition would;
 * - open() listens again on the same port (the first call picks a free one);
 * - freeze() keeps connections up but passes nothing on, as a hung server would.
 */
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

const DEFAULT_PORTS: Record<string, number> = { 'redis:': 6379, 'amqp:': 5672, 'mongodb:': 27017 };

export class TcpRelay {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  private readonly target: URL;
  private frozen = false;
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
        from.on('data', (chunk) => this.frozen || to.write(chunk));
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
}
