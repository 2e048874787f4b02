/**
 * A workspace list (campaigns, platforms): search, status filter with counts, order, and pages of cards,
 * with what it says while loading, when there is nothing yet, when nothing matches, and on an error. The
 * page says what a card shows.
 */
import type { ReactNode } from 'react';
import { useListParams } from '../hooks/list-params';
import { LIST_PAGE_SIZE, listView, type ListRecord, type SortOption } from '../list-view';
import { ErrorMessage } from './ErrorMessage';
import { ListControls } from './ListControls';
import { Pager } from './Pager';

export interface FilteredListProps<T extends ListRecord> {
  /** the list call's state (useCampaignList, usePublisherList) */
  list: { data?: { items: T[] }; error: unknown; isPending: boolean };
  statuses: readonly string[];
  sorts: Array<SortOption<T>>;
  /** the text a search looks in, besides "#id" */
  searchText: (item: T) => string;
  searchHelp: string;
  /** the record's word, one and many: "campaign", "campaigns" */
  noun: { one: string; many: string };
  /** what the list says before the account has any */
  emptyText: string;
  testId: string;
  card: (item: T) => ReactNode;
}

export function FilteredList<T extends ListRecord>({ list, statuses, sorts, searchText, searchHelp, noun, emptyText, testId, card }: FilteredListProps<T>) {
  const [state, setState] = useListParams();
  const view = listView(list.data?.items ?? [], state, searchText, sorts);
  return (
    <>
      <ListControls state={state} onChange={setState} statuses={statuses} counts={view.counts} sorts={sorts} searchHelp={searchHelp} noun={noun.many} />
      <ErrorMessage error={list.error} />
      {list.data ? (
        list.data.items.length === 0 ? (
          <p>{emptyText}</p>
        ) : view.total === 0 ? (
          <p>No {noun.one} matches. Change the search or the status.</p>
        ) : (
          <>
            <ul className="cards" data-testid={testId}>
              {view.rows.map((item) => (
                <li key={item.id} className="card">
                  {card(item)}
                </li>
              ))}
            </ul>
            <Pager page={view.page} size={LIST_PAGE_SIZE} total={view.total} onPage={(page) => setState({ page })} label={`Pages of the ${noun.many}`} labels={['← Previous', 'Next →']} />
          </>
        )
      ) : list.isPending ? (
        <p className="loading" role="status">
          Loading {noun.many}…
        </p>
      ) : null}
    </>
  );
}
