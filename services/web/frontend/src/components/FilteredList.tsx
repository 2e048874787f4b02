/**
 * A workspace list (campaigns, platforms): the search, status and owner filters the service answers,
 * newest first, a page at a time with "Load more", and one message when nothing is listed (none yet, or
 * none matching the filters). The page says what a card shows, and which moves can be made on several
 * rows at once (each row then has a checkbox where a move applies to it).
 */
import { useState, type ReactNode } from 'react';
import { BulkBar, type BulkAction, type BulkOutcome } from './BulkActions';
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
  /** offers the owner filter (administrators) */
  ownerFilter?: boolean;
  /** moves on several rows at once; the lists are read again once they are made */
  bulk?: { actions: ReadonlyArray<BulkAction<T>>; onDone: () => void };
}

export function FilteredList<T extends { id: number }>({ useList, statuses, searchHelp, noun, testId, card, ownerFilter = false, bulk }: FilteredListProps<T>) {
  const [state, setState] = useListParams();
  const search = useDebounced(state.search.trim());
  const owner = useDebounced(ownerFilter ? state.owner : '');
  const list = useList({ q: search, status: state.status, ownerAccountId: owner });
  const filtered = Boolean(search || state.status || owner);
  const [chosenIds, setChosenIds] = useState<ReadonlySet<number>>(new Set());
  const [outcomes, setOutcomes] = useState<BulkOutcome[]>([]);
  const selectable = (item: T) => Boolean(bulk?.actions.some((action) => action.applies(item)));
  const chosen = list.items.filter((item) => chosenIds.has(item.id) && selectable(item));
  const toggle = (id: number) =>
    setChosenIds((before) => {
      const next = new Set(before);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  return (
    <>
      <ListControls state={state} onChange={setState} statuses={statuses} searchHelp={searchHelp} noun={noun.many} ownerFilter={ownerFilter} />
      {bulk && (list.items.some(selectable) || outcomes.length > 0) ? (
        <BulkBar
          outcomes={outcomes}
          onOutcomes={setOutcomes}
          chosen={chosen}
          actions={bulk.actions}
          noun={noun}
          onClear={() => setChosenIds(new Set())}
          onDone={() => {
            setChosenIds(new Set());
            bulk.onDone();
          }}
        />
      ) : null}
      <ErrorMessage error={list.error} />
      {list.loaded ? (
        list.items.length === 0 ? (
          <p data-testid="list-empty">{filtered ? `No ${noun.one} matches. Change the search or the status.` : `No ${noun.many} here yet.`}</p>
        ) : (
          <div aria-busy={list.stale}>
            <ul className="cards" data-testid={testId}>
              {list.items.map((item) => (
                <li key={item.id} className={bulk ? 'card card-choosable' : 'card'}>
                  {bulk && selectable(item) ? (
                    <label className="card-choose">
                      <input type="checkbox" checked={chosenIds.has(item.id)} onChange={() => toggle(item.id)} />
                      <span className="visually-hidden">Choose #{item.id}</span>
                    </label>
                  ) : null}
                  {bulk ? <div>{card(item, list.items)}</div> : card(item, list.items)}
                </li>
              ))}
            </ul>
            <LoadMore shown={list.items.length} hasMore={list.hasMore} loading={list.loadingMore} onMore={list.loadMore} noun={noun} />
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
