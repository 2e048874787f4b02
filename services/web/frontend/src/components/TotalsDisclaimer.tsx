/**
 * What the totals are not, said once per page: one line, with the details a tap away, so the figures
 * stay on the first screen of a phone.
 */
export function TotalsDisclaimer() {
  return (
    <details className="notice disclaimer" data-testid="totals-disclaimer">
      <summary>Pilot events: not billable impressions, not unique people and not conversions.</summary>
      <p>
        The totals count successful ad requests, deliveries the publishers confirmed, and links opened at least once. Confirmations are
        self-reported and clicks may include automated access.
      </p>
    </details>
  );
}
