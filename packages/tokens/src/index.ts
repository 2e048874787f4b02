/**
 * Delivery and click tokens: issued by allocation, validated by tracking with the shared TOKEN_SECRET.
 * Each is an HMAC-signed binary payload carrying what tracking needs to validate and record it without
 * having seen `allocation.created` yet. The purpose is part of what is signed, so a delivery token is
 * never accepted as a click token and the other way round.
 *
 *   token = base64url(payload) "." base64url(first 16 bytes of HMAC-SHA256(secret, purpose || payload))
 *   payload = version(1) allocationId(16) campaignId(4) publisherId(4)
 *             campaignOwnerAccountId(8) publisherOwnerAccountId(8) issuedAtSeconds(6)   = 47 bytes
 * A token is 86 characters, so `{"token":"..."}` is 98, well under the 200-character body limit.
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';

export type TokenPurpose = 'delivery' | 'click';

export interface AllocationClaims {
  allocationId: string;
  campaignId: number;
  publisherId: number;
  campaignOwnerAccountId: string;
  publisherOwnerAccountId: string;
  issuedAt: Date;
}

export const TOKEN_LIFETIME_SECONDS = 3600;
const VERSION = 1;
const PAYLOAD_BYTES = 47;
const MAC_BYTES = 16;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{63}\.[A-Za-z0-9_-]{22}$/;

export function newAllocationId(): string {
  return randomUUID();
}

function mac(secret: string, purpose: TokenPurpose, payload: Buffer): Buffer {
  return createHmac('sha256', secret).update(purpose).update(payload).digest().subarray(0, MAC_BYTES);
}

export function issueToken(secret: string, purpose: TokenPurpose, claims: AllocationClaims): string {
  const payload = Buffer.alloc(PAYLOAD_BYTES);
  payload.writeUInt8(VERSION, 0);
  Buffer.from(claims.allocationId.replace(/-/g, ''), 'hex').copy(payload, 1);
  payload.writeUInt32BE(claims.campaignId, 17);
  payload.writeUInt32BE(claims.publisherId, 21);
  payload.writeBigUInt64BE(BigInt(claims.campaignOwnerAccountId), 25);
  payload.writeBigUInt64BE(BigInt(claims.publisherOwnerAccountId), 33);
  payload.writeUIntBE(Math.floor(claims.issuedAt.getTime() / 1000), 41, 6);
  return `${payload.toString('base64url')}.${mac(secret, purpose, payload).toString('base64url')}`;
}

function uuidOf(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** True when `candidate` has the shape of a token (says nothing about its signature or purpose). */
export function isWellFormedToken(candidate: unknown): candidate is string {
  return typeof candidate === 'string' && TOKEN_PATTERN.test(candidate);
}

/** The claims of an authentic token of this purpose, or null (malformed, tampered, other purpose). Expiry is the caller's rule. */
export function readToken(secret: string, purpose: TokenPurpose, token: string): AllocationClaims | null {
  if (typeof token !== 'string' || !TOKEN_PATTERN.test(token)) return null;
  const [encodedPayload, encodedMac] = token.split('.') as [string, string];
  const payload = Buffer.from(encodedPayload, 'base64url');
  const given = Buffer.from(encodedMac, 'base64url');
  if (payload.length !== PAYLOAD_BYTES || given.length !== MAC_BYTES) return null;
  // Only the canonical encoding: the unused low bits of the last character must be zero, so one token has
  // exactly one spelling (no altered twin that decodes to the same bytes).
  if (payload.toString('base64url') !== encodedPayload || given.toString('base64url') !== encodedMac) return null;
  if (!timingSafeEqual(given, mac(secret, purpose, payload))) return null;
  if (payload.readUInt8(0) !== VERSION) return null;
  return {
    allocationId: uuidOf(payload.subarray(1, 17)),
    campaignId: payload.readUInt32BE(17),
    publisherId: payload.readUInt32BE(21),
    campaignOwnerAccountId: payload.readBigUInt64BE(25).toString(),
    publisherOwnerAccountId: payload.readBigUInt64BE(33).toString(),
    issuedAt: new Date(payload.readUIntBE(41, 6) * 1000),
  };
}

/** Expired when `now` is more than TOKEN_LIFETIME_SECONDS after issue. */
export function isExpired(claims: AllocationClaims, now: Date): boolean {
  return now.getTime() - claims.issuedAt.getTime() > TOKEN_LIFETIME_SECONDS * 1000;
}
