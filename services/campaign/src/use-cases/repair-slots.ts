import type { CampaignDeps } from './deps';

/** A create holds its slot claim for milliseconds; a claim without a record after this long was left by a dead process. */
const SLOT_CLAIM_GRACE_MS = 10 * 60 * 1000;

/**
 * Releases slots claimed without a record (a create whose process died in between); at start and on a
 * schedule. Changes left unfinished are the outbox relay's: it rolls their projections forward.
 */
export async function repairSlots(deps: CampaignDeps): Promise<{ slots: number }> {
  const slots = await deps.repository.releaseLeakedSlots(new Date(deps.clock.now().getTime() - SLOT_CLAIM_GRACE_MS));
  if (slots > 0) deps.logger.warn({ slots }, 'campaign slots claimed without a record released');
  return { slots };
}
