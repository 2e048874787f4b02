import { counterIn, outcomeOfError, type Registry } from '@pilot/http-kit';

export interface TrackingCounters {
  /** A delivery confirmation: its first, or a repeat of one already counted. */
  confirmed(first: boolean): void;
  /** A click redirect: counted first, a repeat of a counted click, or filtered (HEAD, preview agent). */
  clicked(click: 'first' | 'repeat' | 'filtered', filter?: string): void;
  confirmationFailed(error: unknown): void;
  clickFailed(error: unknown): void;
}

/**
 * `pilot_confirmations_total` and `pilot_clicks_total`, by outcome (first, repeat, filtered for clicks;
 * limited, refused or failed otherwise) and reason (filter or problem code; `none` for counted ones).
 */
export function trackingCounters(registry: Registry): TrackingCounters {
  const confirmations = counterIn(registry, 'pilot_confirmations_total', 'Delivery confirmations by outcome and reason', ['outcome', 'reason']);
  const clicks = counterIn(registry, 'pilot_clicks_total', 'Click redirects by outcome and reason', ['outcome', 'reason']);
  return {
    confirmed: (first) => confirmations.inc({ outcome: first ? 'first' : 'repeat', reason: 'none' }),
    clicked: (click, filter) => clicks.inc({ outcome: click, reason: filter ?? 'none' }),
    confirmationFailed: (error) => confirmations.inc(outcomeOfError(error)),
    clickFailed: (error) => clicks.inc(outcomeOfError(error)),
  };
}
