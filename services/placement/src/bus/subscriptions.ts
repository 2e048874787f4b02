/**
 * Every bus subscription of the placement service, in one place. It consumes no events: it owns its
 * records and only publishes `placement.changed` through its outbox (see data/placement-repository.ts).
 */
import type { Bus } from '@pilot/bus';

export async function subscribe(_bus: Bus): Promise<void> {
  // none
}
