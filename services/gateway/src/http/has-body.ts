import type { IncomingMessage } from 'node:http';

/** Whether a request carries a body: a Content-Length above 0 or any Transfer-Encoding (RFC 9112 6.3). */
export function hasBody(req: IncomingMessage): boolean {
  const declared = Number(req.headers['content-length'] ?? 0);
  return req.headers['transfer-encoding'] !== undefined || declared > 0;
}
