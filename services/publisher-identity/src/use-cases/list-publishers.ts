import { LIST_COUNT_CAP, pageOf, withCount, type ListCount, type ListRead, type Page } from '@pilot/platform';
import type { PublisherView } from '../domain/publisher';
import type { PublisherListFilter } from '../data/publisher-repository';
import type { IdentityDeps } from './deps';
import { publisherView } from './publisher-changes';

/**
 * A page of the list, newest (or oldest) first, ties by id, after `read.after`; with `read.count`, how many
 * platforms the filters match (up to 100: LIST_COUNT_CAP). The filter's owner is decided by the route from the caller
 * (an owner's own records, or what an administrator asked for).
 */
export async function listPublishers(deps: IdentityDeps, filter: PublisherListFilter, read: ListRead): Promise<Page<PublisherView> & Partial<ListCount>> {
  const [records, counted] = await Promise.all([
    deps.publishers.listPage(filter, read.after, read.limit + 1, read.order),
    read.count ? deps.publishers.countMatching(filter, LIST_COUNT_CAP) : null,
  ]);
  return withCount(
    pageOf(records, read.limit, (record) => [new Date(record.createdAt), record._id as number], (record) => publisherView(deps, record)),
    counted,
  );
}
