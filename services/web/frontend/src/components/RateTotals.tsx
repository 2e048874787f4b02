/**
 * The three totals and the two rates people judge an ad by: click-through (clicked / confirmed) and
 * confirmation (confirmed / ad requests), each saying what it divides.
 */
import { formatCount } from '../format';
import { clickThroughRate, confirmationRate } from '../stats-view';
import type { Totals } from '../types';

/** What the click-through rate is of, or why there is none. */
function ctrNote(totals: Totals, ctr: string | null): string {
  if (ctr) return 'clicked links / confirmed deliveries';
  if (totals.confirmedDeliveries === 0) return 'no confirmed deliveries yet';
  // A click counts whether or not its delivery was confirmed, so clicks can outnumber confirmations.
  return `not a rate: more clicked links (${formatCount(totals.clickedLinks)}) than confirmed deliveries (${formatCount(totals.confirmedDeliveries)}); clicks also count on deliveries the platform did not confirm`;
}

export function RateTotals({ totals }: { totals: Totals }) {
  const ctr = clickThroughRate(totals);
  const confirmation = confirmationRate(totals);
  return (
    <dl className="totals" data-testid="totals">
      <div>
        <dt>Ad requests</dt>
        <dd data-testid="total-adRequests">{formatCount(totals.adRequests)}</dd>
      </div>
      <div>
        <dt>Confirmed deliveries</dt>
        <dd data-testid="total-confirmedDeliveries">{formatCount(totals.confirmedDeliveries)}</dd>
      </div>
      <div>
        <dt>Clicked links</dt>
        <dd data-testid="total-clickedLinks">{formatCount(totals.clickedLinks)}</dd>
      </div>
      <div>
        <dt>Click-through rate</dt>
        <dd data-testid="rate-ctr">{ctr ?? '–'}</dd>
        <p className="help" data-testid="rate-ctr-note">{ctrNote(totals, ctr)}</p>
      </div>
      <div>
        <dt>Confirmation rate</dt>
        <dd data-testid="rate-confirmation">{confirmation ?? '–'}</dd>
        <p className="help">{confirmation ? 'confirmed deliveries / ad requests' : 'no ad requests yet'}</p>
      </div>
    </dl>
  );
}
