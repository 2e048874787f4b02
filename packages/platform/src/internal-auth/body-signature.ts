/**
 * The body part of the internal signature. A call whose body is known when it is signed (service calls,
 * tests) names the body's SHA-256 in the `x-pilot-body-sha256` header, under the header signature. The
 * gateway streams bodies it forwards, so it cannot know their digest when it sends the headers: it signs
 * `x-pilot-body-sha256: trailer` instead and sends, after the body, the trailers `x-pilot-body-sha256`
 * (the digest) and `x-pilot-body-signature` (an HMAC binding that digest to the header signature). A
 * service compares the body it read with either, so a captured signature cannot carry another body.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { ClientRequest, IncomingMessage } from 'node:http';

export const BODY_DIGEST_HEADER = 'x-pilot-body-sha256';
export const BODY_SIGNATURE_TRAILER = 'x-pilot-body-signature';
/** The value of the digest header when the digest follows the body as a trailer. */
export const BODY_IN_TRAILER = 'trailer';

const digestOf = (body: Buffer | string) => createHash('sha256').update(body).digest('base64url');
/** Most forwarded calls (every GET) have no body: its digest is computed once. */
const EMPTY_BODY_DIGEST = digestOf('');

/** base64url SHA-256 of a body's bytes (of the empty body when there is none). */
export function bodyDigestOf(body: Buffer | string | null | undefined): string {
  return body === null || body === undefined || body.length === 0 ? EMPTY_BODY_DIGEST : digestOf(body);
}

function bodySignatureOf(secret: string, headerSignature: string, digest: string): string {
  return createHmac('sha256', secret).update(`${headerSignature}\n${digest}`).digest('base64url');
}

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The trailers that vouch for a streamed body after the call signed with `headerSignature`. */
export function bodyTrailers(secret: string, headerSignature: string, digest: string): Record<string, string> {
  return { [BODY_DIGEST_HEADER]: digest, [BODY_SIGNATURE_TRAILER]: bodySignatureOf(secret, headerSignature, digest) };
}

/**
 * Whether `bytes` are the body signed for a verified call: the digest named in its (signed) header, or,
 * for `trailer`, the digest in its trailers with a valid trailer signature. Trailers are read once the
 * body has ended, which is when a body parser calls this.
 */
export function bodyMatches(req: IncomingMessage, secret: string, headerSignature: string, signedDigest: string, bytes: Buffer): boolean {
  const digest = bodyDigestOf(bytes);
  if (signedDigest !== BODY_IN_TRAILER) return safeEqual(signedDigest, digest);
  const trailerDigest = req.trailers[BODY_DIGEST_HEADER];
  const trailerSignature = req.trailers[BODY_SIGNATURE_TRAILER];
  if (typeof trailerDigest !== 'string' || typeof trailerSignature !== 'string') return false;
  return safeEqual(trailerDigest, digest) && safeEqual(trailerSignature, bodySignatureOf(secret, headerSignature, trailerDigest));
}

type WriteArgs = [chunk: unknown, ...rest: unknown[]];

/**
 * Makes a forwarded request carry its body chunked, hashing what is written and adding the trailers at
 * the end. Call before anything is written (in the proxy's `proxyReq` event).
 */
export function signBodyInTrailer(outgoing: ClientRequest, secret: string, headerSignature: string): void {
  const hash = createHash('sha256');
  const hashChunk = (chunk: unknown, encoding: unknown) => {
    if (typeof chunk === 'string') hash.update(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
    else if (chunk instanceof Uint8Array) hash.update(chunk);
  };
  outgoing.removeHeader('content-length');
  outgoing.setHeader('transfer-encoding', 'chunked');
  outgoing.setHeader('trailer', `${BODY_DIGEST_HEADER}, ${BODY_SIGNATURE_TRAILER}`);
  const write = outgoing.write.bind(outgoing) as (...args: WriteArgs) => boolean;
  const end = outgoing.end.bind(outgoing) as (...args: unknown[]) => ClientRequest;
  outgoing.write = ((...args: WriteArgs) => {
    hashChunk(args[0], args[1]);
    return write(...args);
  }) as ClientRequest['write'];
  outgoing.end = ((...args: unknown[]) => {
    if (typeof args[0] !== 'function') hashChunk(args[0], args[1]);
    outgoing.addTrailers(bodyTrailers(secret, headerSignature, hash.digest('base64url')));
    return end(...args);
  }) as ClientRequest['end'];
}
