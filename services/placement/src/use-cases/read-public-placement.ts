import { isShowable, publicViewOf, type PublicPlacement } from '../domain/placement';
import type { Slot } from '../domain/slots';
import type { PlacementDeps } from './deps';

/** The slot's placement when it is showable now; null otherwise (answered 204). */
export async function readPublicPlacement(deps: Pick<PlacementDeps, 'showing' | 'clock'>, slot: Slot): Promise<PublicPlacement | null> {
  const placement = (await deps.showing.currentOf(slot))?.placement;
  return isShowable(placement, deps.clock.now()) ? publicViewOf(placement) : null;
}
