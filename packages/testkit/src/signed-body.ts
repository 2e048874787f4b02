/**
 * Test clients that call a service directly sign like the gateway does, body included. A supertest
 * request gets its body only later, through `.send(...)`: this signs it for no body now and again, for the
 * exact bytes superagent will send, when the body is given.
 */
interface Sendable {
  send(data?: unknown): unknown;
  set(fields: Record<string, string>): unknown;
}

/** The bytes superagent sends for `.send(data)`: strings and buffers as they are, anything else as JSON. */
export function sentBytes(data: unknown): string | Buffer {
  if (typeof data === 'string' || Buffer.isBuffer(data)) return data;
  return JSON.stringify(data);
}

export function signedWhenSent<T extends Sendable>(request: T, sign: (body: string | Buffer | null) => Record<string, string>): T {
  request.set(sign(null));
  const send = request.send.bind(request);
  request.send = (data?: unknown) => {
    request.set(sign(sentBytes(data)));
    return send(data);
  };
  return request;
}

/** Whom a test call is made for, as the gateway names them in what it signs. */
export interface SignedFor {
  accountId: string | null;
  admin: boolean;
  clientIp?: string | null;
}

/** The call a gateway signs (`signedHeaders` of @pilot/platform, which depends on this package for its tests). */
export type CallSigner = (call: SignedFor & { method: string; url: string; body: string | Buffer | null }) => Record<string, string>;

/** A request to a service as the gateway forwards it: signed for `who` now, and again for the body once sent. */
export function signedFor<T extends Sendable>(request: T, method: string, path: string, who: SignedFor, sign: CallSigner): T {
  return signedWhenSent(request, (body) => sign({ ...who, method: method.toUpperCase(), url: path, body }));
}
