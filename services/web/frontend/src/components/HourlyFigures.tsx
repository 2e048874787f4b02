/**
 * One day's figures hour by hour (UTC), for the dashboard's "Today" or any single day: the service's
 * hourly stats (granularity=hour), every hour shown with quiet hours as zeros and hours still to come
 * left blank, as a chart, a table and a CSV of the hours so far.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { apiBody, query } from '../api';
import { SERIES, minBarSize, seriesOrder } from '../chart-series';
import { formatCount, formatDate, formatHour } from '../format';
import { dayHours, hoursCsv, type HourlyStats } from '../hourly';
import { CsvExportButton } from './CsvExportButton';
import { ErrorMessage } from './ErrorMessage';

export function HourlyFigures({ date, campaignId, publisherId, csvSubject }: { date: string; campaignId: string; publisherId: string; csvSubject: string }) {
  const stats = useQuery({
    queryKey: ['stats', 'hourly', date, campaignId, publisherId],
    placeholderData: keepPreviousData,
    queryFn: ({ signal }) => apiBody<HourlyStats>(`/api/workspace/stats${query({ campaignId, publisherId, from: date, to: date, granularity: 'hour' })}`, { signal }),
  });
  if (stats.error) return <ErrorMessage error={stats.error} />;
  if (!stats.data)
    return (
      <p className="loading" role="status">
        Loading the hours…
      </p>
    );
  const hours = dayHours(stats.data.hours ?? [], date, new Date()).map((hour) => ({ ...hour, label: formatHour(hour.hour) }));
  // Hours to come have no bar (null), not a bar of zero.
  const points = hours.map((hour) => (hour.toCome ? { label: hour.label, adRequests: null, confirmedDeliveries: null, clickedLinks: null } : hour));
  const toCome = hours.filter((hour) => hour.toCome).length;
  return (
    <section className="hourly" data-testid="hourly-figures" aria-busy={stats.isPlaceholderData} aria-labelledby="hourly-heading">
      <h2 id="hourly-heading">Hour by hour, {formatDate(date)} (UTC)</h2>
      <div className="chart" aria-hidden="true">
        <ResponsiveContainer width="100%" height={240}>
          <BarChart data={points}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="label" />
            <YAxis allowDecimals={false} tickFormatter={formatCount} />
            <Tooltip formatter={(value) => formatCount(Number(value))} />
            <Legend itemSorter={seriesOrder} />
            {SERIES.map((series) => (
              <Bar key={series.key} dataKey={series.key} name={series.name} fill={series.color} minPointSize={minBarSize} />
            ))}
          </BarChart>
        </ResponsiveContainer>
      </div>
      <details className="days">
        <summary>Per hour (24 hours)</summary>
        <div className="table-wrap data-table-wrap">
          <table className="data-table stacked" data-testid="hour-table">
            <caption>Per hour (UTC), hours without events included{toCome > 0 ? '; hours still to come are blank' : ''}</caption>
            <thead>
              <tr>
                <th scope="col">Hour (UTC)</th>
                <th scope="col">Ad requests</th>
                <th scope="col">Confirmed deliveries</th>
                <th scope="col">Clicked links</th>
              </tr>
            </thead>
            <tbody>
              {hours.map((hour) => (
                <tr key={hour.hour} className={hour.toCome ? 'to-come' : undefined}>
                  <th scope="row">{hour.label}</th>
                  {hour.toCome ? (
                    <td className="number" colSpan={3} data-label="Figures">
                      to come
                    </td>
                  ) : (
                    <>
                      <td className="number" data-label="Ad requests">{formatCount(hour.adRequests)}</td>
                      <td className="number" data-label="Confirmed deliveries">{formatCount(hour.confirmedDeliveries)}</td>
                      <td className="number" data-label="Clicked links">{formatCount(hour.clickedLinks)}</td>
                    </>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
      <p>
        <CsvExportButton csv={stats.isPlaceholderData ? null : hoursCsv(hours)} fileName={`pilot-${csvSubject}-${date}-by-hour.csv`} />{' '}
        <span className="help">Every hour of the day so far, hours without events included.</span>
      </p>
    </section>
  );
}
