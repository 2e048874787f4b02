import { pageOf, type Page } from '@pilot/platform';
import type { CurrentPosition } from '@pilot/storage';
import type { PublisherView } from '../domain/publisher';
import type { PublisherListFilter } from '../data/publisher-repository';
import type { IdentityDeps } from './deps';
import { publisherView } from './publisher-changes';

/**
 * A page of the list, newest first (ties by id), after `after`. The filter's owner is decided by the
 * route from the caller (an owner's own records, or what an administrator asked for).
 */
export async function listPublishers(deps: IdentityDeps, filter: PublisherListFilter, after: CurrentPosition | null, limit: number): Promise<Page<PublisherView>> {
  const records = await deps.publishers.listPage(filter, after, limit + 1);
  return pageOf(records, limit, (record) => [new Date(record.createdAt), record._id as number], (record) => publisherView(deps, record));
}
