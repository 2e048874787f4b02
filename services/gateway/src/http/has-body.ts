/**
 * Reads a request body into memory before it is forwarded, so the gateway can sign its digest: at most
 * `maxBytes` (the gateway's body limit; chunked bodies included, whose size is known only at the end).
 * A request without Content-Length or Transfer-Encoding has no body and is not read.
 */
import type { IncomingMessage } from 'node:http';

export type RequestBody = { ok: true; bytes: Buffer | null } | { ok: false; reason: 'too_large' | 'unreadable' };

export function hasBody(req: IncomingMessage): boolean {
  const declared = Number(req.headers['content-length'] ?? 0);
  return req.headers['transfer-encoding'] !== undefined || declared > 0;
}

export function readRequestBody(req: IncomingMessage, maxBytes: number): Promise<RequestBody> {
  if (!hasBody(req)) return Promise.resolve({ ok: true, bytes: null });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (result: RequestBody) => {
      if (settled) return;
      settled = true;
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      req.removeListener('error', onError);
      req.removeListener('aborted', onError);
      if (!result.ok) req.resume(); // let the rest drain so the answer can be written
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) finish({ ok: false, reason: 'too_large' });
      else chunks.push(chunk);
    };
    const onEnd = () => finish({ ok: true, bytes: Buffer.concat(chunks, size) });
    const onError = () => finish({ ok: false, reason: 'unreadable' });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('aborted', onError);
  });
}
