/** The body of a pause (API.md): nothing, `{}`, or `{reason}` as for a rejection (contract OptionalReasonBody). Pure. */
import { OptionalReasonBody, validatorOf, type Validated } from '@pilot/contracts';

const checkPause = validatorOf(OptionalReasonBody);

export function validateOptionalReason(body: unknown): Validated<string | null> {
  if (body === undefined || body === null) return { ok: true, value: null };
  const checked = checkPause(body);
  return checked.ok ? { ok: true, value: checked.value.reason?.trim() ?? null } : checked;
}
