/**
 * Delivery and click tokens: issued by allocation, validated by tracking with the shared TOKEN_SECRET.
 * A token carries what tracking needs to validate and count it without having seen the allocation, sealed
 * (AES-256-GCM, see sealed-token.ts) so that it reveals none of it. The purpose is authenticated with it:
 * a delivery token is never accepted as a click token and the other way round. Tokens of the earlier,
 * signed-only format are still read during the upgrade (legacy-signed-token.ts, decision 0016).
 */
import { randomUUID } from 'node:crypto';
import type { AllocationClaims, TokenPurpose } from './claims';
import { LEGACY_TOKEN_PATTERN, readLegacyToken } from './legacy-signed-token';
import { openToken, SEALED_TOKEN_PATTERN, sealToken } from './sealed-token';

export { isExpired, isTestAllocation, TEST_CAMPAIGN_ID, TEST_CAMPAIGN_OWNER, TOKEN_LIFETIME_SECONDS, type AllocationClaims, type TokenPurpose } from './claims';
export { LEGACY_TOKENS_ISSUED_BEFORE } from './legacy-signed-token';

export function newAllocationId(): string {
  return randomUUID();
}

export function issueToken(secret: string, purpose: TokenPurpose, claims: AllocationClaims): string {
  return sealToken(secret, purpose, claims);
}

/** True when `candidate` has the shape of a token (says nothing about its authenticity or purpose). */
export function isWellFormedToken(candidate: unknown): candidate is string {
  return typeof candidate === 'string' && (SEALED_TOKEN_PATTERN.test(candidate) || LEGACY_TOKEN_PATTERN.test(candidate));
}

/** The claims of an authentic token of this purpose, or null (malformed, tampered, other purpose). Expiry is the caller's rule. */
export function readToken(secret: string, purpose: TokenPurpose, token: string): AllocationClaims | null {
  if (typeof token !== 'string') return null;
  return openToken(secret, purpose, token) ?? readLegacyToken(secret, purpose, token);
}
