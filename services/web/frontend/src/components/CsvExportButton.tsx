/** Downloads the per-day rows as a CSV file, made in the browser from the rows on screen. */
import { daysCsv } from '../stats-view';
import type { Stats } from '../types';

export function CsvExportButton({ days, fileName }: { days: Stats['days']; fileName: string }) {
  const download = () => {
    const url = URL.createObjectURL(new Blob([daysCsv(days)], { type: 'text/csv;charset=utf-8' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = fileName;
    document.body.append(link);
    link.click();
    link.remove();
    // The download has its own copy once started; the address is freed on the next turn.
    setTimeout(() => URL.revokeObjectURL(url), 0);
  };
  return (
    <button type="button" className="button button-secondary" onClick={download} disabled={days.length === 0} data-testid="csv-export">
      Download CSV
    </button>
  );
}
