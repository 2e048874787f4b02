/** What a delivery or a click is counted under: the allocation's campaign, platform and their owners. Pure. */
import type { AllocationClaims } from '@pilot/tokens';

export function countedOf(claims: AllocationClaims) {
  return {
    campaignId: claims.campaignId,
    publisherId: claims.publisherId,
    campaignOwnerAccountId: claims.campaignOwnerAccountId,
    publisherOwnerAccountId: claims.publisherOwnerAccountId,
    allocatedAt: claims.issuedAt,
  };
}
