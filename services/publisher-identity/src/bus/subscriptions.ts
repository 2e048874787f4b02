/**
 * Every bus subscription of publisher-identity, in one place (every service has this file and this
 * `subscribe`, called by start.ts once the bus is open, before the routes are mounted): none. It owns accounts, sessions and
 * publisher platforms, and publishes publisher.* events through its outbox.
 */
import type { Bus } from '@pilot/messaging';
import type { Logger } from '@pilot/platform';

export function subscribe(_deps: { bus: Bus; logger: Logger }): void {
  // none
}
