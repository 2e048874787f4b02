import { verifyBodyDigest } from '@pilot/platform';
import type { Request } from 'express';

export type RawBody = { ok: true; bytes: Buffer } | { ok: false; reason: 'too_large' | 'unreadable' | 'not_signed' };

/**
 * Reads a request body's bytes without decoding them, refusing early (without reading the rest) once
 * it exceeds `maxBytes`, and refusing a body that is not the one the gateway signed (its digest comes as
 * trailers after the body). The caller decodes the text and checks its character limit.
 */
export function readRawBody(req: Request, maxBytes: number): Promise<RawBody> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve({ ok: false, reason: 'too_large' });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (result: RawBody) => {
      if (settled) return;
      settled = true;
      req.removeListener('data', onData);
      req.removeListener('end', onEnd);
      req.removeListener('error', onError);
      if (!result.ok) req.resume(); // drain the rest so the connection stays usable
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) finish({ ok: false, reason: 'too_large' });
      else chunks.push(chunk);
    };
    const onEnd = () => {
      const bytes = Buffer.concat(chunks);
      finish(verifyBodyDigest(req, bytes) ? { ok: true, bytes } : { ok: false, reason: 'not_signed' });
    };
    const onError = () => finish({ ok: false, reason: 'unreadable' });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
