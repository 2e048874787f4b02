/**
 * The token format: the claims encrypted with AES-256-GCM, so a token reveals nothing (no account,
 * campaign or publisher id) and any change to it is refused; the id of the key that sealed
 * it travels with it, so a reader holding the current and the previous TOKEN_SECRET opens it with the
 * right one, and rotating the secret voids no live link (docs/operations.md).
 *
 *   token = base64url( version(1)=3 keyId(3) nonce(12) ciphertext(46) tag(16) )   = 78 bytes, 104 characters
 *   key = HKDF-SHA256(TOKEN_SECRET, salt, info), 32 bytes; keyId = the first 3 bytes of SHA-256 of the key
 *   (says nothing of it); nonce random per token;
 *   additional data = purpose || version || keyId, so a delivery token never opens as a click token.
 * 78 bytes are exactly 104 base64url characters with no unused bits: one token has one spelling. Only this
 * format is read: a token of another version or length opens as nothing.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomFillSync } from 'node:crypto';
import type { AllocationClaims, TokenPurpose } from './claims';
import { CLAIMS_BYTES, decodeClaims, encodeClaims } from './claims-codec';

const VERSION = 3;
const KEY_ID_BYTES = 3;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const TOKEN_BYTES = 1 + KEY_ID_BYTES + NONCE_BYTES + CLAIMS_BYTES + TAG_BYTES;
const KEY_SALT = 'pilot/tokens';
const KEY_INFO = 'delivery and click tokens, AES-256-GCM, v2';

export const SEALED_TOKEN_PATTERN = /^[A-Za-z0-9_-]{104}$/;

interface TokenKey {
  key: Buffer;
  id: Buffer;
  /** The additional data of each purpose under this key. */
  aad: Record<TokenPurpose, Buffer>;
}

// Allocation issues a token per ad request: derive each secret's key once, not per token.
const derived = new Map<string, TokenKey>();

function keyOf(secret: string): TokenKey {
  let known = derived.get(secret);
  if (!known) {
    const key = Buffer.from(hkdfSync('sha256', secret, KEY_SALT, KEY_INFO, 32));
    const id = createHash('sha256').update(key).digest().subarray(0, KEY_ID_BYTES);
    known = { key, id, aad: { delivery: additionalData('delivery', VERSION, id), click: additionalData('click', VERSION, id) } };
    if (derived.size >= 8) derived.clear();
    derived.set(secret, known);
  }
  return known;
}

function additionalData(purpose: TokenPurpose, version: number, keyId: Buffer): Buffer {
  return Buffer.concat([Buffer.from(purpose), Buffer.from([version]), keyId]);
}

// Nonces are cut from random bytes drawn a pool at a time: one call into the CSPRNG per 256 tokens, not one
// per token, whose fixed cost was a few per cent of allocation's CPU per ad request.
const noncePool = Buffer.allocUnsafe(NONCE_BYTES * 256);
let nonceAt = noncePool.length;

/** 12 fresh random bytes, valid until the next call (the cipher copies them). */
function nextNonce(): Buffer {
  if (nonceAt + NONCE_BYTES > noncePool.length) {
    randomFillSync(noncePool);
    nonceAt = 0;
  }
  nonceAt += NONCE_BYTES;
  return noncePool.subarray(nonceAt - NONCE_BYTES, nonceAt);
}

export function sealToken(secret: string, purpose: TokenPurpose, claims: AllocationClaims): string {
  const { key, id, aad } = keyOf(secret);
  const nonce = nextNonce();
  const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad[purpose]);
  const ciphertext = Buffer.concat([cipher.update(encodeClaims(claims)), cipher.final()]);
  return Buffer.concat([Buffer.from([VERSION]), id, nonce, ciphertext, cipher.getAuthTag()]).toString('base64url');
}

function open(key: Buffer, aad: Buffer, nonce: Buffer, ciphertext: Buffer, tag: Buffer): AllocationClaims | null {
  const decipher = createDecipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  try {
    return decodeClaims(Buffer.concat([decipher.update(ciphertext), decipher.final()]));
  } catch {
    return null; // tampered, other purpose or other secret: the tag does not match
  }
}

/** The claims of an authentic sealed token of this purpose, sealed with one of `secrets`, or null. */
export function openToken(secrets: readonly string[], purpose: TokenPurpose, token: string): AllocationClaims | null {
  if (!SEALED_TOKEN_PATTERN.test(token)) return null;
  const bytes = Buffer.from(token, 'base64url');
  if (bytes.length === TOKEN_BYTES && bytes[0] === VERSION) {
    const keyId = bytes.subarray(1, 1 + KEY_ID_BYTES);
    const sealer = secrets.map(keyOf).find((candidate) => candidate.id.equals(keyId));
    if (!sealer) return null;
    const nonceStart = 1 + KEY_ID_BYTES;
    return open(sealer.key, sealer.aad[purpose], bytes.subarray(nonceStart, nonceStart + NONCE_BYTES), bytes.subarray(nonceStart + NONCE_BYTES, nonceStart + NONCE_BYTES + CLAIMS_BYTES), bytes.subarray(TOKEN_BYTES - TAG_BYTES));
  }
  return null;
}
