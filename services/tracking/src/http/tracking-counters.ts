import { counterIn, outcomeOfError, type Registry } from '@pilot/platform';

export interface TrackingCounters {
  /** A delivery confirmation: its first, or a repeat of one already counted; `test` for a test allocation's (sandbox). */
  confirmed(first: boolean, test?: boolean): void;
  /** A click redirect: counted first, a repeat of a counted click, filtered (HEAD, preview agent), or a test ad's. */
  clicked(click: 'first' | 'repeat' | 'filtered' | 'test', filter?: string): void;
  confirmationFailed(error: unknown): void;
  /** A test key's confirmation answered as X-Pilot-Test-Answer forced it: a test outcome, never a failure. */
  confirmationForced(status: number): void;
  clickFailed(error: unknown): void;
}

/**
 * `pilot_confirmations_total` and `pilot_clicks_total`, by outcome (first, repeat, filtered for clicks,
 * test for a sandbox test allocation's, never counted in totals; limited, refused or failed otherwise) and reason (filter or problem code; `none` for counted ones).
 */
export function trackingCounters(registry: Registry): TrackingCounters {
  const confirmations = counterIn(registry, 'pilot_confirmations_total', 'Delivery confirmations by outcome and reason', ['outcome', 'reason']);
  const clicks = counterIn(registry, 'pilot_clicks_total', 'Click redirects by outcome and reason', ['outcome', 'reason']);
  return {
    confirmed: (first, test = false) => confirmations.inc({ outcome: test ? 'test' : first ? 'first' : 'repeat', reason: 'none' }),
    clicked: (click, filter) => clicks.inc({ outcome: click, reason: filter ?? 'none' }),
    confirmationFailed: (error) => confirmations.inc(outcomeOfError(error)),
    confirmationForced: (status) => confirmations.inc({ outcome: 'test', reason: `forced_${status}` }),
    clickFailed: (error) => clicks.inc(outcomeOfError(error)),
  };
}
