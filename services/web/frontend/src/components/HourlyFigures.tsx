/**
 * One day's figures hour by hour (UTC), for the dashboard's "Today" or any single day: the service's
 * hourly stats (granularity=hour), every hour shown with quiet hours as zeros, as a chart and a table.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import { apiBody, query } from '../api';
import { SERIES, minBarSize, seriesOrder } from '../chart-series';
import { formatCount, formatDate, formatHour } from '../format';
import { dayHours, type HourlyStats } from '../hourly';
import { ErrorMessage } from './ErrorMessage';

export function HourlyFigures({ date, campaignId, publisherId }: { date: string; campaignId: string; publisherId: string }) {
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
  const hours = dayHours(stats.data.hours ?? [], date).map((hour) => ({ ...hour, label: formatHour(hour.hour) }));
  return (
    <section className="hourly" data-testid="hourly-figures" aria-busy={stats.isPlaceholderData} aria-labelledby="hourly-heading">
      <h2 id="hourly-heading">Hour by hour, {formatDate(date)} (UTC)</h2>
      <div className="chart" aria-hidden="true">
        <ResponsiveContainer width="100%" height={240}>
          <BarChart data={hours}>
            <CartesianGrid strokeDasharray="3 3" />
            <XAxis dataKey="label" />
            <YAxis allowDecimals={false} />
            <Tooltip />
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
            <caption>Per hour (UTC), hours without events included</caption>
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
                <tr key={hour.hour}>
                  <th scope="row">{hour.label}</th>
                  <td className="number" data-label="Ad requests">{formatCount(hour.adRequests)}</td>
                  <td className="number" data-label="Confirmed deliveries">{formatCount(hour.confirmedDeliveries)}</td>
                  <td className="number" data-label="Clicked links">{formatCount(hour.clickedLinks)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </section>
  );
}
