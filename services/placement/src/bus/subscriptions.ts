/**
 * Every bus subscription of the placement service, in one place (every service has this file and this
 * `subscribe`, called by start.ts once the bus is open, before the routes are mounted): none. It owns its records and only publishes
 * `placement.changed` through its outbox (see data/placement-repository.ts).
 */
import type { Bus } from '@pilot/messaging';
import type { Logger } from '@pilot/platform';

export function subscribe(_deps: { bus: Bus; logger: Logger }): void {
  // none
}
