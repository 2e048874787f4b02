/**
 * The token format before decision 0016, read but never issued: an HMAC-signed, readable payload.
 * Accepted only for tokens issued before LEGACY_TOKENS_ISSUED_BEFORE, so links handed out by allocation
 * replicas of the previous version keep working through a rolling upgrade; delete this module in the
 * first release after that date (every such token has expired an hour later).
 *
 *   token = base64url(payload) "." base64url(first 16 bytes of HMAC-SHA256(secret, purpose || payload))
 *   payload = version(1)=1 claims(46)
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { AllocationClaims, TokenPurpose } from './claims';
import { CLAIMS_BYTES, decodeClaims } from './claims-codec';

export const LEGACY_TOKENS_ISSUED_BEFORE = new Date('2027-02-01T00:00:00Z');
export const LEGACY_TOKEN_PATTERN = /^[A-Za-z0-9_-]{63}\.[A-Za-z0-9_-]{22}$/;

const VERSION = 1;
const MAC_BYTES = 16;

function mac(secret: string, purpose: TokenPurpose, payload: Buffer): Buffer {
  return createHmac('sha256', secret).update(purpose).update(payload).digest().subarray(0, MAC_BYTES);
}

/** The claims of an authentic legacy token of this purpose issued before the cut-off, or null. */
export function readLegacyToken(secret: string, purpose: TokenPurpose, token: string): AllocationClaims | null {
  if (!LEGACY_TOKEN_PATTERN.test(token)) return null;
  const [encodedPayload, encodedMac] = token.split('.') as [string, string];
  const payload = Buffer.from(encodedPayload, 'base64url');
  const given = Buffer.from(encodedMac, 'base64url');
  if (payload.length !== 1 + CLAIMS_BYTES || given.length !== MAC_BYTES) return null;
  // Only the canonical encoding: one token has exactly one spelling.
  if (payload.toString('base64url') !== encodedPayload || given.toString('base64url') !== encodedMac) return null;
  if (!timingSafeEqual(given, mac(secret, purpose, payload))) return null;
  if (payload.readUInt8(0) !== VERSION) return null;
  const claims = decodeClaims(payload.subarray(1));
  return claims.issuedAt < LEGACY_TOKENS_ISSUED_BEFORE ? claims : null;
}
