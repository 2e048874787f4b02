export type TokenPurpose = 'delivery' | 'click';

/** What tracking needs to validate and count a token without having seen the allocation. */
export interface AllocationClaims {
  allocationId: string;
  campaignId: number;
  publisherId: number;
  campaignOwnerAccountId: string;
  publisherOwnerAccountId: string;
  issuedAt: Date;
}

export const TOKEN_LIFETIME_SECONDS = 3600;

/** Expired when `now` is more than TOKEN_LIFETIME_SECONDS after issue. */
export function isExpired(claims: AllocationClaims, now: Date): boolean {
  return now.getTime() - claims.issuedAt.getTime() > TOKEN_LIFETIME_SECONDS * 1000;
}
