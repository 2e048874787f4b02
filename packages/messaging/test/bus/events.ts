import { ALLOCATION_CREATED, createEnvelope, type AllocationCreated } from '@pilot/contracts';
import { uniqueName } from '@pilot/testkit';

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
