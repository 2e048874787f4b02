/** Path and query parameters read strictly: the same shapes in every service. */

/** A single query parameter as a string; repeated or missing parameters are undefined. */
export function queryString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A record id or a count as a path, a query or a stored key writes it (API.md: a positive integer), else null. */
export function positiveIntOf(value: unknown): number | null {
  if (typeof value !== 'string' || !/^[1-9][0-9]{0,15}$/.test(value)) return null;
  const parsed = Number(value);
  return Number.isSafeInteger(parsed) ? parsed : null;
}
