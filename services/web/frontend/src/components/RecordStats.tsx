/**
 * A campaign's or a platform's own totals: the range chosen by preset (all time first), the
 * totals with click-through and confirmation rates, every day of the range with zeros for quiet days,
 * and the days as CSV.
 */
import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { apiBody, query } from '../api';
import { timeline } from '../chart-series';
import { csvFileName, daysCsv, presetRange, type Preset } from '../stats-view';
import type { Stats } from '../types';
import { CsvExportButton } from './CsvExportButton';
import { DatePresets } from './DatePresets';
import { DayTable } from './DayTable';
import { ErrorMessage } from './ErrorMessage';
import { RateTotals } from './RateTotals';
import { formatCount, formatDate } from '../format';

/** `preset` and `onPreset`: the period when the page shares it with its other figures (else its own, all time first). */
export function RecordStats({ record, id, preset: shared, onPreset }: { record: 'campaign' | 'publisher'; id: number; preset?: Preset; onPreset?: (preset: Preset) => void }) {
  const [own, setOwn] = useState<Preset>('all');
  const preset = shared ?? own;
  const setPreset = onPreset ?? setOwn;
  const range = presetRange(preset, new Date());
  const filter = record === 'campaign' ? { campaignId: String(id) } : { publisherId: String(id) };
  const stats = useQuery({
    queryKey: ['stats', record, id, range],
    placeholderData: keepPreviousData,
    queryFn: ({ signal }) => apiBody<Stats>(`/api/workspace/stats${query({ ...filter, ...range })}`, { signal }),
  });
  const days = stats.data && !stats.isPlaceholderData ? timeline(stats.data.days, range) : [];
  const subject = record === 'campaign' ? `campaign-${id}` : `platform-${id}`;
  return (
    <section className="key-panel" data-testid="record-stats" aria-labelledby={`${subject}-totals`}>
      <h2 id={`${subject}-totals`}>Totals</h2>
      <DatePresets value={preset} onChange={setPreset} label="Period" />
      <ErrorMessage error={stats.error} />
      {stats.data ? (
        <div aria-busy={stats.isPlaceholderData}>
          <RateTotals totals={stats.data} />
          <p className="help">
            {range.from ? `${formatDate(range.from)} to ${formatDate(range.to)}, UTC.` : 'All time.'}{' '}
            {record === 'publisher' ? 'Requests made with the test key are never counted.' : null}
          </p>
          {days.length > 0 ? (
            <details className="days">
              <summary>
                Per day ({formatCount(days.length)} {days.length === 1 ? 'day' : 'days'})
              </summary>
              <DayTable days={days} caption="Per day (UTC), days without events included" />
            </details>
          ) : (
            <p>No events in this period.</p>
          )}
          <CsvExportButton csv={days.length > 0 ? daysCsv(days) : null} fileName={csvFileName(subject, range, days)} />
        </div>
      ) : stats.isPending ? (
        <p className="loading" role="status">
          Loading totals…
        </p>
      ) : null}
    </section>
  );
}
