/** The body of a pause (API.md): nothing, `{}`, or `{reason}` of 1 to 500 characters as for a rejection. Pure. */
import { validateReason, type Validated } from './publisher';

export function validateOptionalReason(body: unknown): Validated<string | null> {
  if (body === undefined || body === null) return { ok: true, value: null };
  if (typeof body !== 'object' || Array.isArray(body)) return { ok: false, errors: [{ field: '(body)', code: 'invalid_type', message: 'must be a JSON object' }] };
  const unknown = Object.keys(body).filter((field) => field !== 'reason');
  if (unknown.length > 0) return { ok: false, errors: unknown.map((field) => ({ field, code: 'unknown_field', message: 'is not accepted here' })) };
  const reason = (body as Record<string, unknown>).reason;
  if (reason === undefined || reason === null) return { ok: true, value: null };
  return validateReason(body);
}
