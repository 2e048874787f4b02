/**
 * A request whose body arrives in two parts, over its own socket: the server has the request in hand
 * (headers read, handler waiting for the body) between `begin` and `finish`, so a test can signal the
 * server while the request is certainly in flight.
 */
import { connect, type Socket } from 'node:net';

export class SlowRequest {
  private socket: Socket | null = null;
  private answer: Promise<{ status: number; text: string }> = Promise.resolve({ status: 0, text: '' });

  constructor(
    private readonly port: number,
    private readonly method: string,
    private readonly path: string,
    private readonly headers: Record<string, string>,
    private readonly body: Buffer,
  ) {}

  /** Connects, sends the headers and the first half of the body. */
  async begin(): Promise<void> {
    const socket = connect(this.port, '127.0.0.1');
    this.socket = socket;
    const chunks: Buffer[] = [];
    this.answer = new Promise((resolve) => {
      socket.on('data', (chunk) => chunks.push(chunk));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const match = /^HTTP\/1\.[01] (\d{3})/.exec(text);
        resolve({ status: match ? Number(match[1]) : 0, text });
      });
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', () => resolve());
      socket.once('error', reject);
    });
    const lines = [`${this.method} ${this.path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close', `Content-Length: ${this.body.length}`];
    for (const [name, value] of Object.entries(this.headers)) lines.push(`${name}: ${value}`);
    const half = Math.floor(this.body.length / 2);
    socket.write(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), this.body.subarray(0, half)]));
  }

  /** Sends the rest of the body and resolves with the answer. */
  async finish(): Promise<{ status: number; text: string }> {
    this.socket?.write(this.body.subarray(Math.floor(this.body.length / 2)));
    return this.answer;
  }
}
