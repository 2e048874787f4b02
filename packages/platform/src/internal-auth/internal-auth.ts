/**
 * Services trust who is calling only through headers the gateway signs with the internal secret.
 * A request that reaches a service directly without a valid signature is refused, whatever it claims.
 * The signature covers method, URL, account, admin flag, client address, request id, a timestamp and the
 * SHA-256 of the body, named in a header or, for a streamed body, in signed trailers (body-signature.ts):
 * a replay is accepted only within a short window, only for the same request line and only with the same
 * body. The body is compared where it is read (`jsonBody`, or `verifyBodyDigest` for a service reading
 * raw bytes), since the signature is checked before the body has arrived.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { BODY_DIGEST_HEADER, BODY_IN_TRAILER, bodyDigestOf, bodyMatches } from './body-signature';
import { problems } from '../problems';

export const INTERNAL_HEADERS = {
  signature: 'x-pilot-internal',
  account: 'x-pilot-account',
  admin: 'x-pilot-admin',
  displayName: 'x-pilot-display-name',
  clientIp: 'x-pilot-client-ip',
  requestId: 'x-request-id',
  bodyDigest: BODY_DIGEST_HEADER,
} as const;

const MAX_SKEW_MS = 60_000;

export interface Principal {
  accountId: string;
  admin: boolean;
  displayName: string;
}

export interface CallContext {
  method: string;
  url: string;
  accountId?: string | null;
  admin?: boolean;
  displayName?: string | null;
  clientIp?: string | null;
  requestId?: string | null;
  /** The exact bytes of the body sent with the call; none is the empty body. */
  body?: Buffer | string | null;
  /** The body is streamed and vouched for by trailers (`signBodyInTrailer`), not by its digest here. */
  bodyInTrailer?: boolean;
}

function signatureOf(secret: string, timestamp: string, ctx: CallContext, bodyDigest: string): string {
  const canonical = [
    timestamp,
    ctx.method.toUpperCase(),
    ctx.url,
    ctx.accountId ?? '',
    ctx.admin ? '1' : '0',
    ctx.displayName ? Buffer.from(ctx.displayName, 'utf8').toString('base64url') : '',
    ctx.clientIp ?? '',
    ctx.requestId ?? '',
    bodyDigest,
  ].join('\n');
  return createHmac('sha256', secret).update(canonical).digest('base64url');
}

/** The headers the gateway (or a service calling another) adds to a forwarded call. */
export function signedHeaders(secret: string, ctx: CallContext, now = Date.now()): Record<string, string> {
  const timestamp = String(now);
  const bodyDigest = ctx.bodyInTrailer ? BODY_IN_TRAILER : bodyDigestOf(ctx.body);
  const headers: Record<string, string> = {
    [INTERNAL_HEADERS.signature]: `v2.${timestamp}.${signatureOf(secret, timestamp, ctx, bodyDigest)}`,
    [INTERNAL_HEADERS.admin]: ctx.admin ? '1' : '0',
    [INTERNAL_HEADERS.bodyDigest]: bodyDigest,
  };
  if (ctx.accountId) headers[INTERNAL_HEADERS.account] = ctx.accountId;
  if (ctx.displayName) headers[INTERNAL_HEADERS.displayName] = Buffer.from(ctx.displayName, 'utf8').toString('base64url');
  if (ctx.clientIp) headers[INTERNAL_HEADERS.clientIp] = ctx.clientIp;
  if (ctx.requestId) headers[INTERNAL_HEADERS.requestId] = ctx.requestId;
  return headers;
}

function header(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

interface VerifiedCall {
  principal: Principal | null;
  clientIp: string | null;
  /** Whether bytes read from the body are the body signed with the call. */
  bodyMatches(bytes: Buffer): boolean;
}

const verifiedCalls = new WeakMap<Request, VerifiedCall>();

export function verifyInternalCall(req: Request, secret: string, now = Date.now()): VerifiedCall | null {
  const raw = header(req, INTERNAL_HEADERS.signature);
  const match = raw ? /^v2\.(\d{1,15})\.([A-Za-z0-9_-]{43})$/.exec(raw) : null;
  if (!match || !match[1] || !match[2]) return null;
  const bodyDigest = header(req, INTERNAL_HEADERS.bodyDigest);
  if (!bodyDigest || (bodyDigest !== BODY_IN_TRAILER && !/^[A-Za-z0-9_-]{43}$/.test(bodyDigest))) return null;
  const timestamp = match[1];
  if (Math.abs(now - Number(timestamp)) > MAX_SKEW_MS) return null;
  const accountId = header(req, INTERNAL_HEADERS.account) ?? null;
  const encodedName = header(req, INTERNAL_HEADERS.displayName);
  const displayName = encodedName ? Buffer.from(encodedName, 'base64url').toString('utf8') : null;
  const ctx: CallContext = {
    method: req.method,
    url: req.originalUrl,
    accountId,
    admin: header(req, INTERNAL_HEADERS.admin) === '1',
    displayName,
    clientIp: header(req, INTERNAL_HEADERS.clientIp) ?? null,
    requestId: header(req, INTERNAL_HEADERS.requestId) ?? null,
  };
  const expected = Buffer.from(signatureOf(secret, timestamp, ctx, bodyDigest));
  const given = Buffer.from(match[2]);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
  const principal =
    accountId && /^[0-9]{1,20}$/.test(accountId)
      ? { accountId, admin: ctx.admin === true, displayName: displayName ?? accountId }
      : null;
  return { principal, clientIp: ctx.clientIp ?? null, bodyMatches: (bytes) => bodyMatches(req, secret, raw as string, bodyDigest, bytes) };
}

/** Refuses (401 internal_signature_invalid) any call without a valid gateway signature. */
export function requireInternalSignature(secret: string): RequestHandler {
  return (req, _res, next) => {
    const verified = verifyInternalCall(req, secret);
    if (!verified) {
      next(problems.unauthorized('internal_signature_invalid', 'This service is reachable only through the gateway'));
      return;
    }
    verifiedCalls.set(req, verified);
    next();
  };
}

/**
 * Whether `bytes` are the body the gateway signed for this call. A call that needed no signature (a probe
 * or a public path) has no signed body to compare with and passes.
 */
export function verifyBodyDigest(req: Request, bytes: Buffer): boolean {
  const verified = verifiedCalls.get(req);
  return verified ? verified.bodyMatches(bytes) : true;
}

/** The signed-in account of a verified call, or null for an anonymous one. */
export function principalOf(req: Request): Principal | null {
  return verifiedCalls.get(req)?.principal ?? null;
}

/** The signed-in account, or a 401 problem when there is none. */
export function requirePrincipal(req: Request): Principal {
  const principal = principalOf(req);
  if (!principal) throw problems.unauthorized('not_signed_in', 'Sign in to use the workspace');
  return principal;
}

export function requireAdmin(req: Request): Principal {
  const principal = requirePrincipal(req);
  if (!principal.admin) throw problems.forbidden('admin_only', 'Only an administrator may do this');
  return principal;
}

/** The client address the gateway saw (for per-client limits); falls back to the socket address. */
export function clientIpOf(req: Request): string {
  return verifiedCalls.get(req)?.clientIp ?? req.socket.remoteAddress ?? 'unknown';
}
