/**
 * The token format since decision 0016: the claims encrypted with AES-256-GCM, so a token reveals nothing
 * (no account, campaign or publisher id) and any change to it is refused.
 *
 *   token = base64url( version(1) nonce(12) ciphertext(46) tag(16) )   = 75 bytes, 100 characters
 *   key = HKDF-SHA256(TOKEN_SECRET, salt, info), 32 bytes; nonce random per token;
 *   additional data = purpose || version, so a delivery token never opens as a click token.
 * 75 bytes are exactly 100 base64url characters with no unused bits: one token has one spelling.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { AllocationClaims, TokenPurpose } from './claims';
import { CLAIMS_BYTES, decodeClaims, encodeClaims } from './claims-codec';

const VERSION = 2;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const TOKEN_BYTES = 1 + NONCE_BYTES + CLAIMS_BYTES + TAG_BYTES;
const KEY_SALT = 'pilot/tokens';
const KEY_INFO = 'delivery and click tokens, AES-256-GCM, v2';

export const SEALED_TOKEN_PATTERN = /^[A-Za-z0-9_-]{100}$/;

// Allocation issues a token per ad request: derive the key once per secret, not per token.
let derived: { secret: string; key: Buffer } | null = null;

function keyOf(secret: string): Buffer {
  if (derived?.secret !== secret) derived = { secret, key: Buffer.from(hkdfSync('sha256', secret, KEY_SALT, KEY_INFO, 32)) };
  return derived.key;
}

function additionalData(purpose: TokenPurpose): Buffer {
  return Buffer.concat([Buffer.from(purpose), Buffer.from([VERSION])]);
}

export function sealToken(secret: string, purpose: TokenPurpose, claims: AllocationClaims): string {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', keyOf(secret), nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(additionalData(purpose));
  const ciphertext = Buffer.concat([cipher.update(encodeClaims(claims)), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), nonce, ciphertext, cipher.getAuthTag()]).toString('base64url');
}

/** The claims of an authentic sealed token of this purpose, or null. */
export function openToken(secret: string, purpose: TokenPurpose, token: string): AllocationClaims | null {
  if (!SEALED_TOKEN_PATTERN.test(token)) return null;
  const bytes = Buffer.from(token, 'base64url');
  if (bytes.length !== TOKEN_BYTES || bytes[0] !== VERSION) return null;
  const nonce = bytes.subarray(1, 1 + NONCE_BYTES);
  const ciphertext = bytes.subarray(1 + NONCE_BYTES, 1 + NONCE_BYTES + CLAIMS_BYTES);
  const tag = bytes.subarray(TOKEN_BYTES - TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', keyOf(secret), nonce, { authTagLength: TAG_BYTES });
  decipher.setAAD(additionalData(purpose));
  decipher.setAuthTag(tag);
  try {
    return decodeClaims(Buffer.concat([decipher.update(ciphertext), decipher.final()]));
  } catch {
    return null; // tampered, other purpose or other secret: the tag does not match
  }
}
