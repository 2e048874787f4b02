/**
 * The figures of a breakdown table (campaigns or platforms for a period): per row the three totals, the
 * click-through rate and the fill, each with its change against the previous period of equal length.
 */
import { dateOfDay, dayNumber, isCalendarDate } from './calendar-days';
import { formatChange, formatShare } from './format';

export interface BreakdownItem {
  id: number;
  adRequests: number;
  confirmedDeliveries: number;
  clickedLinks: number;
  /** a platform's ad requests answered with no creative, when the service reports them */
  unfilledAdRequests?: number;
}

export type Figure = 'adRequests' | 'confirmedDeliveries' | 'clickedLinks';
export const FIGURES: ReadonlyArray<{ key: Figure; label: string }> = [
  { key: 'adRequests', label: 'Requests' },
  { key: 'confirmedDeliveries', label: 'Confirmed deliveries' },
  { key: 'clickedLinks', label: 'Clicks' },
];

/**
 * The period of equal length that ends the day before `from` (both ends included: 1 to 7 May comes after
 * 24 to 30 April). All time, or a range that is not two dates in order, has none.
 */
export function previousRange(range: { from: string; to: string }): { from: string; to: string } | null {
  if (!isCalendarDate(range.from) || !isCalendarDate(range.to)) return null;
  const first = dayNumber(range.from);
  const last = dayNumber(range.to);
  if (!Number.isFinite(first) || !Number.isFinite(last) || last < first) return null;
  const length = last - first + 1;
  return { from: dateOfDay(first - length), to: dateOfDay(first - 1) };
}

/**
 * A figure against its previous value: "+25.0%", "−3.0%", "±0.0%"; "new" when there was none before and
 * is some now; "–" when both are 0; null when the previous value is not known (no previous period, or the
 * row was not among the previous period's rows read).
 */
export function changeWords(current: number, previous: number | null): string | null {
  if (previous === null) return null;
  if (previous === 0) return current > 0 ? 'new' : '–';
  return formatChange(current, previous);
}

export interface BreakdownRow {
  id: number;
  figures: Record<Figure, number>;
  /** clicks / confirmed deliveries, formatted; null without confirmed deliveries or with more clicks than them */
  ctr: string | null;
  /** requests answered with an ad among all counted requests, formatted; null when not reported or none */
  fill: string | null;
  change: Record<Figure, string | null>;
}

/**
 * The rows to show. `previous` is the previous period's rows that were read; `previousComplete` says they
 * are all of them (its last page was reached), so a row missing from them had 0 then rather than unknown.
 */
export function breakdownRows(current: readonly BreakdownItem[], previous: readonly BreakdownItem[] | null, previousComplete: boolean): BreakdownRow[] {
  const before = new Map((previous ?? []).map((item) => [item.id, item]));
  return current.map((item) => {
    const earlier = before.get(item.id);
    const previousOf = (key: Figure): number | null => (previous === null ? null : earlier ? earlier[key] : previousComplete ? 0 : null);
    const figures = { adRequests: item.adRequests, confirmedDeliveries: item.confirmedDeliveries, clickedLinks: item.clickedLinks };
    return {
      id: item.id,
      figures,
      ctr: formatShare(item.clickedLinks, item.confirmedDeliveries),
      fill: item.unfilledAdRequests === undefined ? null : formatShare(item.adRequests, item.adRequests + item.unfilledAdRequests),
      change: {
        adRequests: changeWords(figures.adRequests, previousOf('adRequests')),
        confirmedDeliveries: changeWords(figures.confirmedDeliveries, previousOf('confirmedDeliveries')),
        clickedLinks: changeWords(figures.clickedLinks, previousOf('clickedLinks')),
      },
    };
  });
}
