/**
 * A record id as a path, a query or a stored key writes it (API.md: a positive integer): decimal digits
 * without a leading zero, at most a safe integer; anything else is null.
 */
export function recordIdOf(value: unknown): number | null {
  if (typeof value !== 'string' || !/^[1-9][0-9]{0,15}$/.test(value)) return null;
  const id = Number(value);
  return Number.isSafeInteger(id) ? id : null;
}
