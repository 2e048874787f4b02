/**
 * Delivery and click tokens: issued by allocation with TOKEN_SECRET, validated by tracking with it and,
 * while the secret is being rotated, with TOKEN_SECRET_PREVIOUS (each token names its key).
 * A token carries what tracking needs to validate and count it without having seen the allocation, sealed
 * (AES-256-GCM, see sealed-token.ts) so that it reveals none of it. The purpose is authenticated with it:
 * a delivery token is never accepted as a click token and the other way round.
 */
import { randomUUID } from 'node:crypto';
import type { AllocationClaims, TokenPurpose } from './claims';
import { openToken, SEALED_TOKEN_PATTERN, sealToken } from './sealed-token';

export { isExpired, isTestAllocation, TEST_CAMPAIGN_ID, TEST_CAMPAIGN_OWNER, TOKEN_LIFETIME_SECONDS, type AllocationClaims, type TokenPurpose } from './claims';

export function newAllocationId(): string {
  return randomUUID();
}

export function issueToken(secret: string, purpose: TokenPurpose, claims: AllocationClaims): string {
  return sealToken(secret, purpose, claims);
}

/** True when `candidate` has the shape of a token (says nothing about its authenticity or purpose). */
export function isWellFormedToken(candidate: unknown): candidate is string {
  return typeof candidate === 'string' && SEALED_TOKEN_PATTERN.test(candidate);
}

/** The secrets a reader accepts: the current one, and the previous one while a rotation is under way. */
export interface TokenSecrets {
  current: string;
  /** The secret before the current one, accepted for the tokens' lifetime after a rotation; null: none. */
  previous: string | null;
}

/**
 * The claims of an authentic token of this purpose, sealed with the current or the previous secret, or
 * null (malformed, tampered, other purpose, unknown key). Expiry is the caller's rule.
 */
export function readToken(secrets: TokenSecrets, purpose: TokenPurpose, token: string): AllocationClaims | null {
  if (typeof token !== 'string') return null;
  const accepted = secrets.previous ? [secrets.current, secrets.previous] : [secrets.current];
  return openToken(accepted, purpose, token);
}
