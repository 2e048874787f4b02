import { formatShare } from './format';

/** The share of counted ad requests that got a creative (200s among 200s and 204s), rounded to one decimal; null before any. */
export function fillRate(filled: number, unfilled: number): string | null {
  return formatShare(filled, filled + unfilled);
}
