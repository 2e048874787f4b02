/**
 * A workspace list (campaigns, platforms): the search and status filter the service answers, newest
 * first, a page at a time with "Load more", and one message when nothing is listed (none yet, or none
 * matching the filters). The page says what a card shows.
 */
import type { ReactNode } from 'react';
import { useDebounced } from '../hooks/debounced';
import { useListParams } from '../hooks/list-params';
import type { ListFilters, PagedList } from '../hooks/workspace-lists';
import { ErrorMessage } from './ErrorMessage';
import { ListControls } from './ListControls';
import { LoadMore } from './LoadMore';

export interface FilteredListProps<T extends { id: number }> {
  /** the paged list call for these filters (useCampaignList, usePublisherList) */
  useList: (filters: ListFilters) => PagedList<T>;
  statuses: readonly string[];
  searchHelp: string;
  /** the record's word, one and many: "campaign", "campaigns" */
  noun: { one: string; many: string };
  testId: string;
  /** a row's card; `shown`: every row loaded, for notes that compare rows */
  card: (item: T, shown: readonly T[]) => ReactNode;
}

export function FilteredList<T extends { id: number }>({ useList, statuses, searchHelp, noun, testId, card }: FilteredListProps<T>) {
  const [state, setState] = useListParams();
  const search = useDebounced(state.search.trim());
  const list = useList({ q: search, status: state.status });
  const filtered = Boolean(search || state.status);
  return (
    <>
      <ListControls state={state} onChange={setState} statuses={statuses} searchHelp={searchHelp} noun={noun.many} />
      <ErrorMessage error={list.error} />
      {list.loaded ? (
        list.items.length === 0 ? (
          <p data-testid="list-empty">{filtered ? `No ${noun.one} matches. Change the search or the status.` : `No ${noun.many} here yet.`}</p>
        ) : (
          <div aria-busy={list.stale}>
            <ul className="cards" data-testid={testId}>
              {list.items.map((item) => (
                <li key={item.id} className="card">
                  {card(item, list.items)}
                </li>
              ))}
            </ul>
            <LoadMore shown={list.items.length} hasMore={list.hasMore} loading={list.loadingMore} onMore={list.loadMore} noun={noun.many} />
          </div>
        )
      ) : list.isPending ? (
        <p className="loading" role="status">
          Loading {noun.many}…
        </p>
      ) : null}
    </>
  );
}
