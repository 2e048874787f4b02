import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { apiBody, query } from '../api';
import { CsvExportButton } from '../components/CsvExportButton';
import { DatePresets } from '../components/DatePresets';
import { DayTable } from '../components/DayTable';
import { ErrorMessage } from '../components/ErrorMessage';
import { TotalsDisclaimer } from '../components/TotalsDisclaimer';
import { RateTotals } from '../components/RateTotals';
import { HourlyFigures } from '../components/HourlyFigures';
import { RecordPicker } from '../components/RecordPicker';
import { SERIES, chartOf, minBarSize, rangeProblem, seriesOrder, timeline } from '../chart-series';
import { countOf, formatCount, formatDate, formatMonth } from '../format';
import { useAddressParams } from '../hooks/address-params';
import { usePageTitle } from '../hooks/page-title';
import { csvFileName, daysCsv, presetOf, presetRange } from '../stats-view';
import type { Stats } from '../types';

/** The CSV file's subject: what the totals are of. */
function csvSubject(filters: { campaignId: string; publisherId: string }): string {
  return ['dashboard', filters.campaignId && `campaign-${filters.campaignId}`, filters.publisherId && `platform-${filters.publisherId}`].filter(Boolean).join('-');
}

const DASHBOARD_PARAMS = { campaignId: 'campaignId', publisherId: 'publisherId', from: 'from', to: 'to' } as const;

export function DashboardPage() {
  usePageTitle('Dashboard');
  // The filters live in the address: a reload, a bookmark or a shared link shows the same totals.
  const [filters, changeFilters] = useAddressParams(DASHBOARD_PARAMS);
  const setFilters = (change: Partial<typeof filters>) => changeFilters(change, { replace: true });
  const badRange = rangeProblem(filters.from, filters.to);
  // A range the service would refuse is not asked for; the totals of the last good filters stay on screen.
  const stats = useQuery({
    queryKey: ['stats', filters],
    enabled: !badRange,
    placeholderData: keepPreviousData,
    queryFn: ({ signal }) => apiBody<Stats>(`/api/workspace/stats${query(filters)}`, { signal }),
  });
  const days = stats.data ? timeline(stats.data.days, stats.isPlaceholderData ? {} : { from: filters.from, to: filters.to }) : [];
  // A single day (Today, or a day typed in) is shown hour by hour.
  const oneDay = !badRange && filters.from !== '' && filters.from === filters.to;
  const chart = chartOf(days);
  const periodLabel = (period: string) => (chart.unit === 'month' ? formatMonth(period) : formatDate(period));
  const set = (key: keyof typeof filters) => (event: { target: { value: string } }) => setFilters({ [key]: event.target.value });

  return (
    <section className="dashboard">
      <h1>Dashboard</h1>
      <TotalsDisclaimer />
      <DatePresets
        value={presetOf({ from: filters.from, to: filters.to }, new Date())}
        onChange={(preset) => setFilters(presetRange(preset, new Date()))}
        label="Period"
      />
      <form className="filters" aria-label="Filters" onSubmit={(event) => event.preventDefault()}>
        <RecordPicker kind="campaign" label="Campaign" all="All campaigns" value={filters.campaignId} onChange={(campaignId) => setFilters({ campaignId })} />
        <RecordPicker kind="publisher" label="Platform" all="All platforms" value={filters.publisherId} onChange={(publisherId) => setFilters({ publisherId })} />
        <label>
          From (UTC date)
          <input type="date" value={filters.from} onChange={set('from')} aria-invalid={Boolean(badRange)} aria-describedby="range-problem" />
        </label>
        <label>
          To (UTC date)
          <input type="date" value={filters.to} onChange={set('to')} aria-invalid={Boolean(badRange)} aria-describedby="range-problem" />
        </label>
      </form>
      <p id="range-problem" className="error" role="alert" data-testid="range-problem" hidden={!badRange}>
        {badRange ? `${badRange} The totals below are for the last valid choice.` : null}
      </p>
      <ErrorMessage error={stats.error} />
      {stats.data ? (
        <>
          <RateTotals totals={stats.data} />
          {oneDay ? <HourlyFigures date={filters.from} campaignId={filters.campaignId} publisherId={filters.publisherId} csvSubject={csvSubject(filters)} /> : null}
          {oneDay ? null : days.length > 0 ? (
            <>
              {chart.unit === 'month' ? (
                <p className="help" data-testid="chart-by-month">
                  The period is longer than a year, so the chart shows one bar a month. The table lists the{' '}
                  {countOf(stats.data.days.length, { one: 'day', many: 'days' })} with events; the CSV has every day of the period (
                  {countOf(days.length, { one: 'day', many: 'days' })}), days without events included.
                </p>
              ) : null}
              <div className="chart" aria-hidden="true">
                <ResponsiveContainer width="100%" height={240}>
                  <BarChart data={chart.points}>
                    <CartesianGrid strokeDasharray="3 3" />
                    <XAxis dataKey="period" tickFormatter={periodLabel} />
                    <YAxis allowDecimals={false} tickFormatter={formatCount} />
                    <Tooltip labelFormatter={(period) => periodLabel(String(period))} formatter={(value) => formatCount(Number(value))} />
                    <Legend itemSorter={seriesOrder} />
                    {SERIES.map((series) => (
                      <Bar key={series.key} dataKey={series.key} name={series.name} fill={series.color} minPointSize={minBarSize} />
                    ))}
                  </BarChart>
                </ResponsiveContainer>
              </div>
              <DayTable days={stats.data.days} caption="Days with events (UTC)" />
              <p>
                {/* Disabled while the rows on screen are still those of the previous filters. */}
                <CsvExportButton csv={stats.isPlaceholderData || days.length === 0 ? null : daysCsv(days)} fileName={csvFileName(csvSubject(filters), filters, days)} />{' '}
                <span className="help">Every day of the period, days without events included.</span>
              </p>
            </>
          ) : (
            <p>No events in this period yet.</p>
          )}
        </>
      ) : stats.isPending && !badRange ? (
        <p className="loading" role="status">
          Loading totals…
        </p>
      ) : null}
    </section>
  );
}
