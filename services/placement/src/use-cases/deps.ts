/**
 * What the placement service's use cases are given by start.ts: the slots' store and the slots as the site shows them, the impression counts,
 * the clock and the impression reports' limiter. They see no HTTP.
 */
import type { Clock, RedisLimiter } from '@pilot/platform';
import type { ImpressionRepository } from '../data/impression-repository';
import type { PlacementRepository } from '../data/placement-repository';
import type { ShowingSlots } from '../data/showing-slots';

export interface PlacementDeps {
  placements: PlacementRepository;
  /** The slots as the site's pages see them, kept in memory (data/showing-slots.ts). */
  showing: ShowingSlots;
  impressions: ImpressionRepository;
  clock: Clock;
  /** Impression reports per client address (IMPRESSION_LIMIT_*), shared by every replica. */
  impressionLimit: RedisLimiter;
}
