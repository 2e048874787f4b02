/**
 * Campaigns or platforms with their figures for a period, as a table (TanStack Table): requests,
 * confirmed deliveries and clicks, each with its change against the previous period of equal length, the
 * click-through rate and, for platforms, the fill. A figure's header sorts by it: the service sorts
 * (highest first), so the order holds across every page, not only the rows loaded.
 */
import { useMemo, useState } from 'react';
import { flexRender, getCoreRowModel, useReactTable, type ColumnDef, type SortingState } from '@tanstack/react-table';
import { Link } from 'react-router-dom';
import { FIGURES, type BreakdownRow, type Figure } from '../breakdown-view';
import { formatCount, formatDate } from '../format';
import { useBreakdown } from '../hooks/breakdown';
import { useRecordNames } from '../hooks/record-names';
import { PRESETS, presetRange, type Preset } from '../stats-view';
import { ErrorMessage } from './ErrorMessage';
import { LoadMore } from './LoadMore';
import { SortHeader } from './SortHeader';

export interface BreakdownTableProps {
  by: 'campaign' | 'publisher';
  title: string;
  /** the breakdown's filter: the platforms of one campaign, or the campaigns of one platform */
  campaignId?: string;
  publisherId?: string;
  /** the rows' records can be read by this account, so their names are shown and linked */
  names: boolean;
  testId: string;
  /** the period of the page's totals, when the page has them: the table follows it and has no period of its own */
  preset?: Preset;
}

const NOUN = {
  campaign: { one: 'Campaign', single: 'campaign', many: 'campaigns', path: 'campaigns' },
  publisher: { one: 'Platform', single: 'platform', many: 'platforms', path: 'publishers' },
} as const;

function rangeWords(range: { from: string; to: string }): string {
  return range.from ? `${formatDate(range.from)} to ${formatDate(range.to)} (UTC)` : 'all time';
}

function FigureCell({ row, figure }: { row: BreakdownRow; figure: Figure }) {
  const change = row.change[figure];
  return (
    <>
      <span className="figure">{formatCount(row.figures[figure])}</span>
      {change ? (
        <span className={`change${change.startsWith('+') || change === 'new' ? ' change-up' : change.startsWith('−') ? ' change-down' : ''}`} data-testid={`change-${figure}`}>
          {change}
        </span>
      ) : null}
    </>
  );
}

export function BreakdownTable({ by, title, campaignId, publisherId, names: showNames, testId, preset: shared }: BreakdownTableProps) {
  const [own, setPreset] = useState<Preset>('7d');
  const preset = shared ?? own;
  const [sort, setSort] = useState<Figure>('adRequests');
  const range = presetRange(preset, new Date());
  const report = useBreakdown({ by, range, sort, campaignId, publisherId });
  const names = useRecordNames(by, report.rows.map((row) => row.id), showNames);
  const noun = NOUN[by];
  // Fill means something for platforms over every campaign: requests left unfilled have no campaign, so
  // one campaign's platforms would always read 100%.
  const withFill = by === 'publisher' && !campaignId;

  const columns = useMemo<Array<ColumnDef<BreakdownRow>>>(
    () => [
      {
        id: 'record',
        header: noun.one,
        enableSorting: false,
        // A row whose record this account cannot open (another account's platform) is its id, not a link.
        cell: ({ row }) => {
          const name = names.get(row.original.id);
          return name ? (
            <Link to={`/workspace/${noun.path}/${row.original.id}`}>
              #{row.original.id} <bdi dir="auto">{name}</bdi>
            </Link>
          ) : (
            <span title={`${noun.one} of another account`}>#{row.original.id}</span>
          );
        },
      },
      ...FIGURES.map(
        ({ key, label }): ColumnDef<BreakdownRow> => ({
          id: key,
          header: label,
          // The table sorts only columns with a value; the rows come sorted by the service.
          accessorFn: (row) => row.figures[key],
          enableSorting: true,
          cell: ({ row }) => <FigureCell row={row.original} figure={key} />,
        }),
      ),
      { id: 'ctr', header: 'CTR', enableSorting: false, cell: ({ row }) => row.original.ctr ?? '–' },
      ...(withFill ? [{ id: 'fill', header: 'Fill', enableSorting: false, cell: ({ row }) => row.original.fill ?? '–' } satisfies ColumnDef<BreakdownRow>] : []),
    ],
    [withFill, names, noun],
  );
  const sorting: SortingState = [{ id: sort, desc: true }];
  const table = useReactTable({
    data: report.rows,
    // Rows come a page at a time from the service; there is no client paging or expansion to reset.
    autoResetPageIndex: false,
    autoResetExpanded: false,
    columns,
    getCoreRowModel: getCoreRowModel(),
    getRowId: (row) => String(row.id),
    manualSorting: true,
    enableSortingRemoval: false,
    state: { sorting },
    onSortingChange: (updater) => {
      const next = typeof updater === 'function' ? updater(sorting) : updater;
      const figure = next[0]?.id;
      if (figure && FIGURES.some((candidate) => candidate.key === figure)) setSort(figure as Figure);
    },
  });
  const headingId = `${testId}-heading`;

  return (
    <section className="breakdown" data-testid={testId} aria-labelledby={headingId}>
      <h2 id={headingId}>{title}</h2>
      {/* A list page's table has its period as a select; a record's page sets it with its totals' buttons above. */}
      <form className="filters" aria-label={`${shared ? 'Order' : 'Period and order'} of the ${noun.many}' figures`} onSubmit={(event) => event.preventDefault()}>
        {shared ? null : (
          <label>
            Period
            <select value={preset} onChange={(event) => setPreset(event.target.value as Preset)}>
              {PRESETS.map((option) => (
                <option key={option.id} value={option.id}>
                  {option.label}
                </option>
              ))}
            </select>
          </label>
        )}
        <label>
          Highest first by
          <select value={sort} onChange={(event) => setSort(event.target.value as Figure)}>
            {FIGURES.map((figure) => (
              <option key={figure.key} value={figure.key}>
                {figure.label}
              </option>
            ))}
          </select>
        </label>
      </form>
      <p className="help">
        {rangeWords(range)}
        {report.previous ? `, against ${rangeWords(report.previous)}.` : '.'} CTR: clicks / confirmed deliveries (– where there are none, or more clicks than them).
        {withFill ? ' Fill: requests answered with an ad / all counted requests.' : ''} Choose a figure's heading, or the order above, to sort by it.
      </p>
      <ErrorMessage error={report.error} />
      {report.loaded ? (
        report.rows.length === 0 ? (
          <p data-testid="breakdown-empty">No {noun.many} with events in this period.</p>
        ) : (
          <div aria-busy={report.stale}>
            <div className="table-wrap data-table-wrap">
              <table className="data-table stacked" data-testid={`${testId}-table`}>
                <thead>
                  {table.getHeaderGroups().map((group) => (
                    <tr key={group.id}>
                      {group.headers.map((header) => {
                        const label = flexRender(header.column.columnDef.header, header.getContext());
                        return header.column.getCanSort() ? (
                          <SortHeader key={header.id} label={label} active={Boolean(header.column.getIsSorted())} direction="descending" onSort={() => header.column.toggleSorting()} hint="sort by it, highest first" />
                        ) : (
                          <th key={header.id} scope="col">
                            {label}
                          </th>
                        );
                      })}
                    </tr>
                  ))}
                </thead>
                <tbody>
                  {table.getRowModel().rows.map((row) => (
                    <tr key={row.id}>
                      {row.getVisibleCells().map((cell) =>
                        cell.column.id === 'record' ? (
                          <th key={cell.id} scope="row">
                            {flexRender(cell.column.columnDef.cell, cell.getContext())}
                          </th>
                        ) : (
                          <td key={cell.id} className="number" data-column={cell.column.id} data-label={String(cell.column.columnDef.header)}>
                            {flexRender(cell.column.columnDef.cell, cell.getContext())}
                          </td>
                        ),
                      )}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <LoadMore shown={report.rows.length} hasMore={report.hasMore} loading={report.loadingMore} onMore={report.loadMore} noun={{ one: noun.single, many: noun.many }} />
          </div>
        )
      ) : report.isPending ? (
        <p className="loading" role="status">
          Loading the {noun.many}' figures…
        </p>
      ) : null}
    </section>
  );
}
