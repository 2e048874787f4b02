/**
 * Sends a request as raw bytes over a socket, so tests can send what well-behaved clients refuse to:
 * broken or huge headers, odd methods and paths, binary bodies. Resolves with the status code, or with
 * status 0 when the server closed the connection without an answer.
 */
import { connect } from 'node:net';

export interface RawRequest {
  method: string;
  path: string;
  headers: [string, string][];
  body?: Buffer;
}

export interface RawAnswer {
  status: number;
  head: string;
  body: string;
}

export function sendRaw(port: number, request: RawRequest, timeoutMs = 5000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms to ${request.method} ${request.path.slice(0, 80)}`));
    }, timeoutMs);
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const match = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      const split = text.indexOf('\r\n\r\n');
      resolve({
        status: match ? Number(match[1]) : 0,
        head: split >= 0 ? text.slice(0, split) : text,
        body: split >= 0 ? text.slice(split + 4) : '',
      });
    });
    const body = request.body ?? Buffer.alloc(0);
    const lines = [`${request.method} ${request.path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
    for (const [name, value] of request.headers) lines.push(`${name}: ${value}`);
    if (body.length > 0 && !request.headers.some(([name]) => name.toLowerCase() === 'content-length')) {
      lines.push(`Content-Length: ${body.length}`);
    }
    socket.write(Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`, 'latin1'), body]));
  });
}
