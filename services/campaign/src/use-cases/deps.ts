/**
 * What the campaign service's use cases are given by start.ts: the repository, the clock and the logger.
 * The use cases see neither `req` nor `res`; refusals are problem errors with stable codes that the routes
 * pass on.
 */
import type { Clock, Logger } from '@pilot/platform';
import type { CampaignRepository } from '../data/campaign-repository';

export interface CampaignDeps {
  repository: CampaignRepository;
  clock: Clock;
  logger: Logger;
}
