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
