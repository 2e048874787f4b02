/**
 * Every bus subscription of the campaign service, in one place (every service has this file and this
 * `subscribe`, called by start.ts once the bus is open, before the routes are mounted): none. The service only publishes, through
 * its outbox: campaign.submitted, campaign.approved, campaign.rejected, campaign.activated and
 * campaign.paused (src/domain/campaign.ts TRANSITIONS, src/use-cases/campaigns.ts).
 */
import type { Bus } from '@pilot/messaging';
import type { Logger } from '@pilot/platform';

export function subscribe(_deps: { bus: Bus; logger: Logger }): void {
  // none
}
