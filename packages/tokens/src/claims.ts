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

/**
 * The campaign id of the sandbox's fixed test creative: the largest id a token can carry,
 * never handed to a real campaign (ids count up from 1). An allocation of it was answered to a test key:
 * its confirmation and click answer as live ones but are never counted.
 */
export const TEST_CAMPAIGN_ID = 0xffff_ffff;
/** The owner account a test allocation names for its campaign: nobody. */
export const TEST_CAMPAIGN_OWNER = '0';

export function isTestAllocation(claims: Pick<AllocationClaims, 'campaignId'>): boolean {
  return claims.campaignId === TEST_CAMPAIGN_ID;
}

/** Expired when `now` is more than TOKEN_LIFETIME_SECONDS after issue. */
export function isExpired(claims: AllocationClaims, now: Date): boolean {
  return now.getTime() - claims.issuedAt.getTime() > TOKEN_LIFETIME_SECONDS * 1000;
}
