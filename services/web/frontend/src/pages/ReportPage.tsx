/**
 * The report: the figures of the account's own records (an administrator's: the network's) crossed by up
 * to three dimensions (day or hour, campaign, platform, language, format) over a period, narrowed to a
 * campaign or a platform, from GET /api/workspace/stats/report. A table with a totals row, sorted by any
 * column (by the service: figures highest first, dimensions ascending), paged by the service; a CSV of
 * every row of what the table shows; a chart over time when the first dimension is the day or the hour;
 * campaign names and platform links beside their ids from one list call per page. Everything chosen is
 * kept in the address.
 */
import { useEffect, useMemo, useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { Link } from 'react-router-dom';
import { apiBody } from '../api';
import { SERIES, minBarSize, seriesOrder } from '../chart-series';
import { ErrorMessage } from '../components/ErrorMessage';
import { countOf, formatCount, formatDate, formatHour } from '../format';
import { useAddressParams } from '../hooks/address-params';
import { useDebounced } from '../hooks/debounced';
import { usePageTitle } from '../hooks/page-title';
import { useRecordNames } from '../hooks/record-names';
import { languageWords } from '../languages';
import { pagePath } from '../paged-list';
import { DIMENSIONS, MAX_DIMENSIONS, REPORT_FIGURES, ROW_FIELD, dimensionsOf, periodOf, sortOf, type Dimension, type ReportAnswer, type ReportRow } from '../report-view';
import { useAccount } from '../session';
import { PRESETS, type Preset } from '../stats-view';
import { SortHeader } from '../components/SortHeader';

const BASE = '/api/workspace/stats/report';
const REPORT_PAGE = 50;
/** The most points the chart reads (one call, sorted by time). */
const CHART_POINTS = 100;

const REPORT_PARAMS = { by: 'by', period: 'period', from: 'from', to: 'to', campaignId: 'campaign', publisherId: 'platform', sort: 'sort' } as const;

const labelOf = (dimension: Dimension) => DIMENSIONS.find((candidate) => candidate.id === dimension)?.label ?? dimension;

function DimensionCell({ row, dimension, names }: { row: ReportRow; dimension: Dimension; names: { campaign: Map<number, string>; publisher: Map<number, string> } }) {
  const value = row[ROW_FIELD[dimension]];
  if (value === undefined || value === null) return <>–</>;
  switch (dimension) {
    case 'day':
      return <time dateTime={String(value)}>{formatDate(String(value))}</time>;
    case 'hour':
      return <time dateTime={String(value)}>{formatHour(String(value))}</time>;
    case 'language':
      return <>{languageWords(String(value))}</>;
    case 'campaign':
    case 'publisher': {
      const id = Number(value);
      const name = names[dimension].get(id);
      // A record this account can open is a link with its name; another account's is its id.
      return name ? (
        <Link to={`/workspace/${dimension === 'campaign' ? 'campaigns' : 'publishers'}/${id}`}>
          #{id} <bdi dir="auto">{name}</bdi>
        </Link>
      ) : (
        <>#{id}</>
      );
    }
    default:
      return <>{String(value)}</>;
  }
}

export function ReportPage() {
  const account = useAccount();
  usePageTitle('Report');
  const [params, setParams] = useAddressParams(REPORT_PARAMS);
  const dimensions = dimensionsOf(params.by);
  const hourly = dimensions.includes('hour');
  const preset = PRESETS.some((option) => option.id === params.period) ? (params.period as Preset) : params.from && params.to ? null : '7d';
  const period = periodOf(preset, params.from, params.to, hourly, new Date());
  const sort = sortOf(params.sort, dimensions);
  const campaignId = useDebounced(params.campaignId);
  const publisherId = useDebounced(params.publisherId);
  const request = { by: dimensions.join(','), from: period.from, to: period.to, campaignId, publisherId, sort };
  const identity = JSON.stringify(request);
  const [paging, setPaging] = useState<{ identity: string; cursors: Array<string | null> }>({ identity, cursors: [null] });
  const cursors = paging.identity === identity ? paging.cursors : [null];
  useEffect(() => setPaging((before) => (before.identity === identity ? before : { identity, cursors: [null] })), [identity]);
  const cursor = cursors[cursors.length - 1] ?? null;
  const report = useQuery({
    queryKey: ['stats', 'report', request, cursor],
    placeholderData: keepPreviousData,
    queryFn: ({ signal }) => apiBody<ReportAnswer>(pagePath(BASE, request, cursor, REPORT_PAGE), { signal }),
  });
  const time = dimensions[0] === 'day' || dimensions[0] === 'hour' ? dimensions[0] : null;
  const chart = useQuery({
    queryKey: ['stats', 'report', 'chart', { ...request, by: time, sort: time }],
    enabled: time !== null,
    placeholderData: keepPreviousData,
    queryFn: ({ signal }) => apiBody<ReportAnswer>(pagePath(BASE, { ...request, by: time ?? 'day', sort: time ?? 'day' }, null, CHART_POINTS), { signal }),
  });
  const rows = report.data?.rows ?? [];
  const campaignIds = useMemo(() => rows.flatMap((row) => (row.campaignId === undefined ? [] : [row.campaignId])), [rows]);
  const publisherIds = useMemo(() => rows.flatMap((row) => (row.publisherId === undefined ? [] : [row.publisherId])), [rows]);
  const names = { campaign: useRecordNames('campaign', campaignIds, dimensions.includes('campaign')), publisher: useRecordNames('publisher', publisherIds, dimensions.includes('publisher')) };
  const csvHref = pagePath(BASE, { ...request, format: 'csv' }, null).replace(/&limit=\d+/, '');
  const setDimension = (index: number, value: string) => {
    const next = [...dimensions];
    if (value) next[index] = value as Dimension;
    else next.splice(index, 1);
    setParams({ by: dimensionsOf(next.join(',')).join(',') });
  };
  const sortBy = (column: string) => setParams({ sort: column });
  const columns: Array<{ id: string; label: string; figure: boolean }> = [...dimensions.map((dimension) => ({ id: dimension, label: labelOf(dimension), figure: false })), ...REPORT_FIGURES.map((figure) => ({ id: figure.id, label: figure.label, figure: true }))];
  const points = (chart.data?.rows ?? []).map((row) => ({ period: String(time === 'hour' ? row.hour : row.day), adRequests: row.adRequests, confirmedDeliveries: row.confirmedDeliveries, clickedLinks: row.clickedLinks }));

  return (
    <section>
      <h1>Report</h1>
      <p className="help">
        {account.admin ? 'The figures of the whole network' : 'The figures of your campaigns and platforms'}, crossed by up to three dimensions. Dates and hours are UTC.
      </p>
      <form className="filters report-controls" aria-label="What the report shows" onSubmit={(event) => event.preventDefault()}>
        {Array.from({ length: MAX_DIMENSIONS }, (_, index) => (
          <label key={index}>
            {['First', 'Second', 'Third'][index]} dimension
            <select value={dimensions[index] ?? ''} onChange={(event) => setDimension(index, event.target.value)} disabled={index > dimensions.length}>
              {index === 0 ? null : <option value="">None</option>}
              {DIMENSIONS.filter((dimension) => dimension.id === dimensions[index] || (!dimensions.includes(dimension.id) && !(dimension.id === 'day' && dimensions.includes('hour')) && !(dimension.id === 'hour' && dimensions.includes('day')))).map((dimension) => (
                <option key={dimension.id} value={dimension.id}>
                  {dimension.label}
                </option>
              ))}
            </select>
          </label>
        ))}
        <label>
          Period
          <select value={preset ?? 'custom'} onChange={(event) => (event.target.value === 'custom' ? setParams({ period: 'custom', from: period.from, to: period.to }) : setParams({ period: event.target.value === '7d' ? '' : event.target.value, from: '', to: '' }))}>
            {PRESETS.map((option) => (
              <option key={option.id} value={option.id}>
                {option.label}
              </option>
            ))}
            <option value="custom">Custom dates</option>
          </select>
        </label>
        {preset === null || params.period === 'custom' ? (
          <>
            <label>
              From (UTC)
              <input type="date" value={params.from || period.from} max={params.to || undefined} onChange={(event) => setParams({ period: 'custom', from: event.target.value })} />
            </label>
            <label>
              To (UTC)
              <input type="date" value={params.to || period.to} min={params.from || undefined} onChange={(event) => setParams({ period: 'custom', to: event.target.value })} />
            </label>
          </>
        ) : null}
        <label>
          Campaign id
          <input inputMode="numeric" value={params.campaignId} placeholder="Any" onChange={(event) => setParams({ campaignId: event.target.value.replace(/\D/g, '') }, { replace: true })} />
        </label>
        <label>
          Platform id
          <input inputMode="numeric" value={params.publisherId} placeholder="Any" onChange={(event) => setParams({ publisherId: event.target.value.replace(/\D/g, '') }, { replace: true })} />
        </label>
      </form>
      <p className="help" data-testid="report-period">
        {period.from ? `${formatDate(period.from)} to ${formatDate(period.to)} (UTC)` : 'All time'}
        {period.clipped ? ': a report by hour covers at most 7 days, the last 7 of the period.' : '.'}
      </p>
      <ErrorMessage error={report.error ?? chart.error} />
      {time && points.length > 0 ? (
        <figure className="chart" data-testid="report-chart">
          <figcaption>
            {REPORT_FIGURES.map((figure) => figure.label).join(', ')} by {time === 'hour' ? 'hour' : 'day'}
            {chart.data?.nextCursor ? ` (the first ${CHART_POINTS})` : ''}
          </figcaption>
          <ResponsiveContainer width="100%" height={220}>
            <BarChart data={points}>
              <CartesianGrid strokeDasharray="3 3" />
              <XAxis dataKey="period" tickFormatter={(value: string) => (time === 'hour' ? formatHour(value) : formatDate(value))} />
              <YAxis allowDecimals={false} tickFormatter={formatCount} />
              <Tooltip labelFormatter={(value) => (time === 'hour' ? formatHour(String(value)) : formatDate(String(value)))} formatter={(value) => formatCount(Number(value))} />
              <Legend itemSorter={seriesOrder} />
              {SERIES.map((series) => (
                <Bar key={series.key} dataKey={series.key} name={series.name} fill={series.color} minPointSize={minBarSize} />
              ))}
            </BarChart>
          </ResponsiveContainer>
        </figure>
      ) : null}
      {report.data ? (
        rows.length === 0 && cursors.length === 1 ? (
          <p data-testid="report-empty">No events in this period for these filters.</p>
        ) : (
          <div aria-busy={report.isPlaceholderData}>
            <div className="table-wrap data-table-wrap">
              <table className="data-table stacked" data-testid="report-table">
                <caption className="visually-hidden">The report by {dimensions.map(labelOf).join(', ')}</caption>
                <thead>
                  <tr>
                    {columns.map((column) => (
                      <SortHeader
                        key={column.id}
                        label={column.label}
                        active={sort === column.id}
                        direction={column.figure ? 'descending' : 'ascending'}
                        onSort={() => sortBy(column.id)}
                        hint={column.figure ? 'sort by it, highest first' : 'sort by it'}
                      />
                    ))}
                  </tr>
                </thead>
                <tbody>
                  {rows.map((row) => (
                    <tr key={dimensions.map((dimension) => String(row[ROW_FIELD[dimension]])).join('|')}>
                      {dimensions.map((dimension, index) =>
                        index === 0 ? (
                          <th key={dimension} scope="row" data-label={labelOf(dimension)}>
                            <DimensionCell row={row} dimension={dimension} names={names} />
                          </th>
                        ) : (
                          <td key={dimension} data-label={labelOf(dimension)}>
                            <DimensionCell row={row} dimension={dimension} names={names} />
                          </td>
                        ),
                      )}
                      {REPORT_FIGURES.map((figure) => (
                        <td key={figure.id} className="number" data-label={figure.label}>
                          {formatCount(row[figure.id])}
                        </td>
                      ))}
                    </tr>
                  ))}
                </tbody>
                {report.data.totals ? (
                  <tfoot>
                    <tr data-testid="report-totals">
                      <th scope="row" colSpan={dimensions.length} data-label="Totals">
                        Totals, every row
                      </th>
                      {REPORT_FIGURES.map((figure) => (
                        <td key={figure.id} className="number" data-label={figure.label}>
                          {formatCount(report.data.totals[figure.id])}
                        </td>
                      ))}
                    </tr>
                  </tfoot>
                ) : null}
              </table>
            </div>
            <nav className="pager" aria-label="Pages of the report">
              <span aria-live="polite" data-testid="report-shown">
                Page {cursors.length}: {countOf(rows.length, { one: 'row', many: 'rows' })}
                {cursors.length === 1 && !report.data.nextCursor ? ', all of them' : ''}
              </span>
              <button type="button" className="button button-secondary" disabled={cursors.length === 1} onClick={() => setPaging({ identity, cursors: cursors.slice(0, -1) })}>
                Previous page
              </button>
              <button type="button" className="button button-secondary" disabled={!report.data.nextCursor || report.isPlaceholderData} onClick={() => report.data?.nextCursor && setPaging({ identity, cursors: [...cursors, report.data.nextCursor] })}>
                Next page
              </button>
              <a className="button button-secondary" href={csvHref} download data-testid="report-csv">
                Download CSV
              </a>
              <span className="help">Every row of the table, in its order, not only this page.</span>
            </nav>
          </div>
        )
      ) : report.isPending ? (
        <p className="loading" role="status">
          Loading the report…
        </p>
      ) : null}
    </section>
  );
}
