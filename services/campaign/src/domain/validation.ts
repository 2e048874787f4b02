/**
 * The bodies the campaign service takes, checked against their contracts (@pilot/contracts schemas:
 * the rules, codes and types live there) and shaped into what the domain keeps.
 */
import { CreateCampaignBody, OptionalReasonBody, ReasonBody, validatorOf, type Validated } from '@pilot/contracts';

export type { FieldProblem } from '@pilot/contracts';

/** The creative inputs of a draft: what the body gave, with `null` for no image and no replaced campaign. */
export type CreativeInput = Omit<CreateCampaignBody, 'imageUrl' | 'replaces'> & { imageUrl: string | null; replaces: number | null };

const checkCreative = validatorOf(CreateCampaignBody);
const checkRejection = validatorOf(ReasonBody);
const checkPause = validatorOf(OptionalReasonBody);

/** Validates a create-campaign body; on success the value holds exactly the creative inputs. */
export function validateCreative(body: unknown): Validated<CreativeInput> {
  const checked = checkCreative(body);
  if (!checked.ok) return checked;
  const { imageUrl, replaces, ...texts } = checked.value;
  return { ok: true, value: { ...texts, imageUrl: imageUrl ? imageUrl : null, replaces: replaces ?? null } };
}

/** The body of a rejection: `{reason}`. */
export function validateRejection(body: unknown): Validated<{ reason: string }> {
  return checkRejection(body);
}

/** The body of a pause: nothing, `{}`, or `{reason}` (API.md: optional, shown with the campaign and in the audit). */
export function validatePause(body: unknown): Validated<{ reason: string | null }> {
  if (body === undefined || body === null) return { ok: true, value: { reason: null } };
  const checked = checkPause(body);
  return checked.ok ? { ok: true, value: { reason: checked.value.reason ?? null } } : checked;
}
