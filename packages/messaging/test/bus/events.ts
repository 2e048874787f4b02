import { ALLOCATION_CREATED, CAMPAIGN_SUBMITTED, createEnvelope, type AllocationCreated, type CampaignSubmitted } from '@pilot/contracts';
import { uniqueName } from '@pilot/testkit';
import { campaign } from '../../../storage/test/versioned-store/support';

/** A valid event of a type no service consumes, under a fresh id, for the bus tests. */
export function allocationEvent(allocationId = uniqueName('a').slice(0, 60)): AllocationCreated {
  return createEnvelope(ALLOCATION_CREATED, allocationId, 1, {
    allocationId,
    campaignId: 1,
    campaignOwnerAccountId: '100',
    publisherId: 2,
    publisherOwnerAccountId: '200',
    format: 'bot',
    language: 'en',
    allocatedAt: new Date().toISOString(),
  });
}

/** A valid `campaign.submitted`, a type a durable queue consumes (so the bus parks it when nothing receives it). */
export function campaignSubmittedEvent(campaignId: number): CampaignSubmitted {
  return createEnvelope(CAMPAIGN_SUBMITTED, String(campaignId), 1, campaign(campaignId, 'submitted'));
}
