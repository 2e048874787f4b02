import { asInfrastructureFault, type Principal } from '@pilot/platform';
import { withKeyUses, type PublisherView } from '../domain/publisher';
import type { IdentityDeps } from './deps';
import { publisherView, visibleOf } from './publisher-changes';

const KEY_USE_READ_TIMEOUT_MS = 300;

/**
 * One platform, with when its keys were last used; without those when Redis does not answer in time (the
 * page still opens).
 */
export async function readPublisher(deps: IdentityDeps, caller: Principal, id: number): Promise<PublisherView> {
  const view = publisherView(deps, visibleOf(caller, await deps.publishers.load(id)));
  const uses = await asInfrastructureFault(() => deps.readModel.lastUses(id), KEY_USE_READ_TIMEOUT_MS, 'redis', 'key uses').catch((error: unknown) => {
    deps.logger.warn({ err: error, publisherId: id }, 'key uses not read');
    return null;
  });
  return uses ? withKeyUses(view, uses) : view;
}
