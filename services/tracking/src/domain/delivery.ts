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
