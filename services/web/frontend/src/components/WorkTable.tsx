/**
 * A workspace list as a work table (campaigns, platforms): the search, status and owner filters the
 * service answers, a period whose figures each row shows (requests, confirmed deliveries, clicks), the
 * order by creation or by a figure (a column's heading sorts by it), how many records match, and pages
 * back and forth. Filters, period and order are kept in the address, so a view can be shared and reloaded.
 * Rows can be chosen for the moves the page offers on several records at once, each outcome listed.
 */
import { useState, type ReactNode } from 'react';
import { FIGURES, type Figure } from '../breakdown-view';
import { BulkBar, type BulkAction, type BulkOutcome } from './BulkActions';
import { useAddressParams } from '../hooks/address-params';
import { useDebounced } from '../hooks/debounced';
import { useListParams } from '../hooks/list-params';
import { isFigureSort, useWorkTable, WORK_SORTS, type Figures, type WorkSort } from '../hooks/work-table';
import { countOf, formatCount, formatDate, formatDateTime } from '../format';
import { PRESETS, type Preset } from '../stats-view';
import { ErrorMessage } from './ErrorMessage';
import { ListControls } from './ListControls';
import { SortHeader } from './SortHeader';

export interface WorkColumn<T> {
  id: string;
  header: string;
  /** the cell; `shown`: the rows of the page, for notes that compare rows */
  cell: (item: T, shown: readonly T[]) => ReactNode;
}

export interface WorkTableProps<T extends { id: number; createdAt: string; updatedAt: string }> {
  kind: 'campaigns' | 'publishers';
  statuses: readonly string[];
  searchHelp: string;
  /** the record's word, one and many: "campaign", "campaigns" */
  noun: { one: string; many: string };
  testId: string;
  /** the row's record (its header cell, a link) */
  record: (item: T) => ReactNode;
  /** the columns between the record and its figures (status, format, owner…) */
  columns: ReadonlyArray<WorkColumn<T>>;
  /** offers the owner filter (administrators) */
  ownerFilter?: boolean;
  /** moves on several rows at once; the lists are read again once they are made */
  bulk?: { actions: ReadonlyArray<BulkAction<T>>; onDone: () => void };
}

const DEFAULT_PRESET: Preset = '7d';

const ORDER_WORDS: Record<WorkSort, string> = {
  newest: 'newest first',
  oldest: 'oldest first',
  adRequests: 'most requests first',
  confirmedDeliveries: 'most confirmed deliveries first',
  clickedLinks: 'most clicks first',
};

function FigureCells({ figures }: { figures: Figures | null }) {
  return (
    <>
      {FIGURES.map(({ key, label }) => (
        <td key={key} className="number" data-label={label} title={figures ? undefined : 'The figures of this row are not loaded'}>
          {figures ? formatCount(figures[key]) : '–'}
        </td>
      ))}
    </>
  );
}

export function WorkTable<T extends { id: number; createdAt: string; updatedAt: string }>({ kind, statuses, searchHelp, noun, testId, record, columns, ownerFilter = false, bulk }: WorkTableProps<T>) {
  const [state, setState] = useListParams();
  const [view, setView] = useAddressParams({ sort: 'sort', period: 'period' });
  const sort: WorkSort = WORK_SORTS.includes(view.sort as WorkSort) ? (view.sort as WorkSort) : 'newest';
  const preset: Preset = PRESETS.some((option) => option.id === view.period) ? (view.period as Preset) : DEFAULT_PRESET;
  const search = useDebounced(state.search.trim());
  const owner = useDebounced(ownerFilter ? state.owner : '');
  const filters = { q: search, status: state.status, ownerAccountId: owner };
  const table = useWorkTable<T>({ kind, filters, sort, preset });
  const filtered = Boolean(search || state.status || owner);
  const [chosenIds, setChosenIds] = useState<ReadonlySet<number>>(new Set());
  const [outcomes, setOutcomes] = useState<BulkOutcome[]>([]);
  const items = table.rows.map((row) => row.item);
  const selectable = (item: T) => Boolean(bulk?.actions.some((action) => action.applies(item)));
  const chosen = items.filter((item) => chosenIds.has(item.id) && selectable(item));
  const toggle = (id: number) =>
    setChosenIds((before) => {
      const next = new Set(before);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  const choosable = items.filter(selectable);
  const allChosen = choosable.length > 0 && choosable.every((item) => chosenIds.has(item.id));
  const sortBy = (next: WorkSort) => setView({ sort: next === 'newest' ? '' : next });
  const matched = table.total === null ? null : table.capped ? `more than ${formatCount(table.total)} ${noun.many}` : countOf(table.total, noun);
  const rangeWords = table.range.from ? `${formatDate(table.range.from)} to ${formatDate(table.range.to)} (UTC)` : 'all time';

  return (
    <>
      <ListControls state={state} onChange={setState} statuses={statuses} searchHelp={searchHelp} noun={noun.many} ownerFilter={ownerFilter} />
      <form className="filters" aria-label={`Period and order of the ${noun.many}`} onSubmit={(event) => event.preventDefault()}>
        <label>
          Figures of
          <select value={preset} onChange={(event) => setView({ period: event.target.value === DEFAULT_PRESET ? '' : event.target.value })}>
            {PRESETS.map((option) => (
              <option key={option.id} value={option.id}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
        <label>
          Order
          <select value={sort} onChange={(event) => sortBy(event.target.value as WorkSort)} data-testid="table-order">
            {WORK_SORTS.map((option) => (
              <option key={option} value={option}>
                {ORDER_WORDS[option]}
              </option>
            ))}
          </select>
        </label>
      </form>
      <p className="help" data-testid="table-matched" aria-live="polite">
        {matched === null ? 'Counting…' : `${matched[0]?.toUpperCase()}${matched.slice(1)} ${filtered ? (table.total === 1 && !table.capped ? 'matches the filters' : 'match the filters') : 'in all'}`}. Figures: {rangeWords}.{' '}
        {isFigureSort(sort) ? `Sorted by a figure: only ${noun.many} with figures in the period are listed.` : ''}
      </p>
      {bulk && (choosable.length > 0 || outcomes.length > 0) ? (
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
      <ErrorMessage error={table.error} />
      {table.loaded ? (
        table.rows.length === 0 && table.page === 1 ? (
          <p data-testid="list-empty">
            {isFigureSort(sort) && table.total !== 0
              ? `No ${noun.one} with figures in this period matches. Choose another period, or order by creation.`
              : filtered
                ? `No ${noun.one} matches. Change the search or the status.`
                : `No ${noun.many} here yet.`}
          </p>
        ) : (
          <div aria-busy={table.stale}>
            <div className="table-wrap data-table-wrap">
              <table className="data-table stacked work-table" data-testid={testId}>
                <caption className="visually-hidden">
                  {noun.many}, {ORDER_WORDS[sort]}, with their figures of {rangeWords}
                </caption>
                <thead>
                  <tr>
                    {bulk ? (
                      <th scope="col">
                        <label className="card-choose">
                          <input
                            type="checkbox"
                            checked={allChosen}
                            disabled={choosable.length === 0}
                            onChange={() => setChosenIds(allChosen ? new Set() : new Set(choosable.map((item) => item.id)))}
                          />
                          <span className="visually-hidden">Choose every {noun.one} of this page that a move applies to</span>
                        </label>
                      </th>
                    ) : null}
                    <th scope="col">{noun.one[0]?.toUpperCase() + noun.one.slice(1)}</th>
                    {columns.map((column) => (
                      <th key={column.id} scope="col">
                        {column.header}
                      </th>
                    ))}
                    {FIGURES.map(({ key, label }) => (
                      <SortHeader key={key} label={label} active={sort === key} direction="descending" onSort={() => sortBy(key as Figure)} hint={`sort by ${label.toLowerCase()}, highest first`} />
                    ))}
                    <SortHeader
                      label="Created"
                      active={sort === 'newest' || sort === 'oldest'}
                      direction={sort === 'oldest' ? 'ascending' : 'descending'}
                      onSort={() => sortBy(sort === 'newest' ? 'oldest' : 'newest')}
                      hint={sort === 'newest' ? 'sort oldest first' : 'sort newest first'}
                    />
                    <th scope="col">Last change</th>
                  </tr>
                </thead>
                <tbody>
                  {table.rows.map(({ item, figures }) => (
                    <tr key={item.id} data-row-id={item.id}>
                      {bulk ? (
                        <td data-label="Choose">
                          {selectable(item) ? (
                            <label className="card-choose">
                              <input type="checkbox" checked={chosenIds.has(item.id)} onChange={() => toggle(item.id)} />
                              <span className="visually-hidden">Choose #{item.id}</span>
                            </label>
                          ) : null}
                        </td>
                      ) : null}
                      <th scope="row">{record(item)}</th>
                      {columns.map((column) => (
                        <td key={column.id} data-label={column.header}>
                          {column.cell(item, items)}
                        </td>
                      ))}
                      <FigureCells figures={figures} />
                      <td data-label="Created">{formatDateTime(item.createdAt)}</td>
                      <td data-label="Last change">{formatDateTime(item.updatedAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <nav className="pager" aria-label={`Pages of ${noun.many}`}>
              <span aria-live="polite" data-testid="shown-count">
                {table.page === 1 && !table.hasNext
                  ? `${countOf(table.rows.length, noun)} shown${table.rows.length === 1 ? ', the only one' : ', all of them'}`
                  : `Page ${table.page}: ${countOf(table.rows.length, noun)}${matched ? ` of ${matched}` : ''}`}
              </span>
              {table.page > 2 ? (
                <button type="button" className="link-button" onClick={table.first}>
                  First page
                </button>
              ) : null}
              <button type="button" className="button button-secondary" onClick={table.previous} disabled={!table.hasPrevious}>
                Previous page
              </button>
              <button type="button" className="button button-secondary" onClick={table.next} disabled={!table.hasNext || table.stale}>
                Next page
              </button>
            </nav>
          </div>
        )
      ) : (
        <p className="loading" role="status">
          Loading {noun.many}…
        </p>
      )}
    </>
  );
}
