/**
 * Random identifiers and secrets of sign-in, and how they are stored: only SHA-256 hashes of codes,
 * binding values and session ids reach the database, so a database dump signs nobody in.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** An unguessable URL- and cookie-safe value: `bytes` random bytes in base64url (A-Z a-z 0-9 _ -). */
export function randomToken(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex');
}

/** Constant-time equality of two strings of any length (compares their digests). */
export function constantTimeEqual(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** Session ids: 32 random bytes = 43 characters, inside the gateway's cookie pattern [A-Za-z0-9_-]{16,128}. */
export const newSessionId = (): string => randomToken(32);
/** Login codes (deep-link payloads, at most 64 characters of [A-Za-z0-9_-]): 32 random bytes = 43 characters. */
export const newLoginCode = (): string => randomToken(32);
/** Public id of a login request (polled by the browser). */
export const newRequestId = (): string => randomToken(16);
/** The value of the HttpOnly cookie that binds a login request to one browser. */
export const newBindingValue = (): string => randomToken(32);

export const SESSION_ID_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;
export const LOGIN_CODE_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9_-]{22}$/;
export const BINDING_PATTERN = /^[A-Za-z0-9_-]{43}$/;
