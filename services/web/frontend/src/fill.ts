/** The share of counted ad requests that got a creative (200s among 200s and 204s), as a whole percentage; null before any. */
export function fillRate(filled: number, unfilled: number): number | null {
  const all = filled + unfilled;
  return all === 0 ? null : Math.round((filled / all) * 100);
}
