/**
 * Delivery confirmation rules (SPEC.md "POST /api/network/delivery"): the body limit, the shape of the
 * request, and which tokens a publisher may confirm. Pure: no I/O, time comes in as an argument.
 */
import { isExpired, isWellFormedToken, type AllocationClaims } from '@pilot/tokens';

/** The body may hold at most this many characters; one more is 413. */
export const DELIVERY_BODY_LIMIT = 200;
/** A UTF-8 character takes at most 4 bytes: more bytes than this can never be within the limit. */
export const DELIVERY_BODY_MAX_BYTES = DELIVERY_BODY_LIMIT * 4;

/** Characters (Unicode code points) of a decoded body. */
export function characterCount(raw: string): number {
  let count = 0;
  for (const _ of raw) count += 1;
  return count;
}

/**
 * Why a body's headers say it is not plain (uncompressed) UTF-8 JSON, the only body the endpoint reads
 * (API.md: 415 unsupported_media_type), or null. No Content-Type is read as JSON; a declared one must be
 * application/json or application/<x>+json, with no charset or charset=utf-8; Content-Encoding may only
 * be identity.
 */
export function bodyMediaRefusal(contentType: string | undefined, contentEncoding: string | undefined): string | null {
  const encodings = (contentEncoding ?? '').split(',').map((coding) => coding.trim().toLowerCase()).filter(Boolean);
  if (encodings.some((coding) => coding !== 'identity')) return 'Send the body uncompressed: Content-Encoding may only be identity';
  if (contentType === undefined || contentType.trim() === '') return null;
  const [mediaType = '', ...parameters] = contentType.split(';').map((part) => part.trim().toLowerCase());
  if (mediaType !== 'application/json' && !/^application\/[\w.+-]+\+json$/.test(mediaType)) return 'Send the body as application/json';
  for (const parameter of parameters) {
    const [name = '', value = ''] = parameter.split('=').map((part) => part.trim());
    if (name === 'charset' && value.replace(/^"(.*)"$/, '$1') !== 'utf-8') return 'Send the body as UTF-8 (charset=utf-8, or no charset)';
  }
  return null;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The body's bytes as text when they are UTF-8 without NUL characters (which JSON text never holds), else null. */
export function utf8Text(bytes: Uint8Array): string | null {
  try {
    const text = UTF8.decode(bytes);
    return text.includes('\u0000') ? null : text;
  } catch {
    return null;
  }
}

export type ParsedDeliveryBody = { ok: true; token: string } | { ok: false; code: 'invalid_json' | 'invalid_token'; detail: string };

/** Parses a body already known to be within the limit. */
export function parseDeliveryBody(raw: string): ParsedDeliveryBody {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return { ok: false, code: 'invalid_json', detail: 'The body is not valid JSON' };
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, code: 'invalid_token', detail: 'The body must be a JSON object with a string token' };
  }
  const token = (body as Record<string, unknown>).token;
  if (typeof token !== 'string') return { ok: false, code: 'invalid_token', detail: 'token is required and must be a string' };
  if (!isWellFormedToken(token)) return { ok: false, code: 'invalid_token', detail: 'token is not a delivery token' };
  return { ok: true, token };
}

export type DeliveryVerdict = { ok: true; claims: AllocationClaims } | { ok: false; code: 'token_not_found' | 'token_expired' };

/**
 * Whether the calling publisher may confirm this token. An unauthentic token, another publisher's token
 * and an expired one all answer 404 (SPEC.md), with distinct codes for the publisher's own diagnosis.
 */
export function judgeDeliveryToken(claims: AllocationClaims | null, callerPublisherId: number, now: Date): DeliveryVerdict {
  if (!claims || claims.publisherId !== callerPublisherId) return { ok: false, code: 'token_not_found' };
  if (isExpired(claims, now)) return { ok: false, code: 'token_expired' };
  return { ok: true, claims };
}

/** The answers a test key may force on a confirmation with X-Pilot-Test-Answer (API.md, the sandbox). */
export const DELIVERY_FORCED_ANSWERS = ['404', '503'] as const;
export type DeliveryForcedAnswer = (typeof DELIVERY_FORCED_ANSWERS)[number];

/** The value of X-Pilot-Test-Answer on a test key's confirmation (absent or empty: none forced). */
export function parseDeliveryTestAnswer(raw: unknown): { ok: true; forced: DeliveryForcedAnswer | null } | { ok: false; detail: string } {
  if (raw === undefined || raw === '') return { ok: true, forced: null };
  const value = typeof raw === 'string' ? raw.trim() : null;
  if (value !== null && (DELIVERY_FORCED_ANSWERS as readonly string[]).includes(value)) return { ok: true, forced: value as DeliveryForcedAnswer };
  return { ok: false, detail: 'X-Pilot-Test-Answer must be one of 404 or 503 on a confirmation' };
}
