/**
 * A platform's fill: its ad requests answered 200 (a creative, the "ad requests" total) and 204 (none
 * qualified), all time, with the share filled. The other totals are the Totals panel's, shown once there.
 * Test key answers are never counted.
 */
import { useQuery } from '@tanstack/react-query';
import { apiBody } from '../api';
import { fillRate } from '../fill';
import { formatCount } from '../format';
import { ErrorMessage } from './ErrorMessage';
import type { Stats } from '../types';

export function PlatformFill({ publisherId }: { publisherId: number }) {
  const stats = useQuery({
    queryKey: ['stats', 'publisher-fill', publisherId],
    queryFn: () => apiBody<Stats>(`/api/workspace/stats?publisherId=${publisherId}`),
  });
  if (stats.error) return <ErrorMessage error={stats.error} />;
  if (!stats.data) return null;
  const filled = stats.data.adRequests;
  const unfilled = stats.data.unfilledAdRequests ?? 0;
  const rate = fillRate(filled, unfilled);
  return (
    <div className="key-panel" data-testid="platform-fill">
      <h2>Fill</h2>
      <dl className="facts">
        <dt>Ad calls answered with an ad (200)</dt>
        <dd data-testid="fill-200">{formatCount(filled)}</dd>
        <dt>Ad calls with no ad available (204)</dt>
        <dd data-testid="fill-204">{formatCount(unfilled)}</dd>
        <dt>Fill rate</dt>
        <dd data-testid="fill-rate">{rate ?? 'no ad calls yet'}</dd>
      </dl>
      <p className="help">All time. Requests made with the test key are never counted; deliveries and clicks are in the totals below.</p>
    </div>
  );
}
