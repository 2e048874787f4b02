/** The per-day rows (UTC) of a stats answer: the days it is given (a record's page pads the range, the dashboard lists the days with events). */
import { formatCount, formatDate } from '../format';
import type { Stats } from '../types';

export function DayTable({ days, caption }: { days: Stats['days']; caption: string }) {
  return (
    <div className="table-wrap">
      <table className="stacked" data-testid="day-table">
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Date</th>
            <th scope="col">Ad requests</th>
            <th scope="col">Confirmed deliveries</th>
            <th scope="col">Clicked links</th>
          </tr>
        </thead>
        <tbody>
          {days.map((day) => (
            <tr key={day.date}>
              <th scope="row">
                <time dateTime={day.date}>{formatDate(day.date)}</time>
              </th>
              <td data-label="Ad requests">{formatCount(day.adRequests)}</td>
              <td data-label="Confirmed deliveries">{formatCount(day.confirmedDeliveries)}</td>
              <td data-label="Clicked links">{formatCount(day.clickedLinks)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
