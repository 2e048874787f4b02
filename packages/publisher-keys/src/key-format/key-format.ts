/**
 * The publisher API key format: recognisable by secret scanners (`pilot_pk_` prefix), checksummed so a
 * mistyped key is refused before any lookup. Only the SHA-256 of a key is ever stored.
 *
 * Test keys (the sandbox, docs/publishers.md) have the same body behind `pilot_pk_test_`: a person and a
 * scanner tell them apart at a glance, and the two patterns never match the same string (a live key's
 * body has no `_`).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const API_KEY_PREFIX = 'pilot_pk_';
export const TEST_KEY_PREFIX = 'pilot_pk_test_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 32; // 32 base62 characters: about 190 bits of randomness
const CHECKSUM_LENGTH = 6;
const API_KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`);
const TEST_KEY_PATTERN = new RegExp(`^${TEST_KEY_PREFIX}[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`);

/** Which of a platform's two keys a key is: its live key or its sandbox test key. */
export type KeyKind = 'live' | 'test';

function toBase62(value: number, length: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < length; i += 1) {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

function checksumOf(body: string): string {
  return toBase62(crc32(body), CHECKSUM_LENGTH);
}

export function generateApiKey(kind: KeyKind = 'live'): string {
  const bytes = randomBytes(BODY_LENGTH * 2);
  let body = '';
  // Rejection sampling keeps every character uniform over the 62 symbols.
  for (const byte of bytes) {
    if (byte < 248 && body.length < BODY_LENGTH) body += BASE62[byte % 62];
  }
  while (body.length < BODY_LENGTH) {
    const [byte] = randomBytes(1);
    if (byte !== undefined && byte < 248) body += BASE62[byte % 62];
  }
  return `${kind === 'test' ? TEST_KEY_PREFIX : API_KEY_PREFIX}${body}${checksumOf(body)}`;
}

/** Which kind a key claims to be, by its prefix alone (no shape or checksum check: see kindOfApiKey). */
export function keyKindOf(key: string): KeyKind {
  return key.startsWith(TEST_KEY_PREFIX) ? 'test' : 'live';
}

/** The kind of a key that has our shape and a matching checksum, or null; says nothing about whether it is current. */
export function kindOfApiKey(candidate: string): KeyKind | null {
  const kind: KeyKind | null = API_KEY_PATTERN.test(candidate) ? 'live' : TEST_KEY_PATTERN.test(candidate) ? 'test' : null;
  if (kind === null) return null;
  const prefix = kind === 'test' ? TEST_KEY_PREFIX : API_KEY_PREFIX;
  const body = candidate.slice(prefix.length, prefix.length + BODY_LENGTH);
  const checksum = candidate.slice(prefix.length + BODY_LENGTH);
  return safeEqual(checksum, checksumOf(body)) ? kind : null;
}

/** True when the key (live or test) has our shape and its checksum matches; says nothing about whether it is current. */
export function isWellFormedApiKey(candidate: string): boolean {
  return kindOfApiKey(candidate) !== null;
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * The key from an `Authorization: Bearer <key>` header, or null when absent or malformed. The scheme is
 * case-insensitive and separated from the key by one or more spaces (RFC 9110 section 11.4).
 */
export function bearerKeyOf(authorization: string | undefined): string | null {
  if (typeof authorization !== 'string') return null;
  const match = /^bearer +([\x21-\x7e]{1,200})$/i.exec(authorization.trim());
  if (!match || !match[1]) return null;
  return isWellFormedApiKey(match[1]) ? match[1] : null;
}
