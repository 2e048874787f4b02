/**
 * Validation of the creative inputs of a campaign (SPEC.md "Campaign (creative inputs)"), pure.
 * Lengths are counted in grapheme clusters, the characters people see: an emoji with modifiers is one;
 * the UTF-16 length is capped as well (http-kit text-length). URLs must name a public host.
 * Every failing field is reported, so the client can show all problems at once.
 */
import { lengthExcess, lengthExcessMessage, publicHostProblem } from '@pilot/http-kit';
import { isCampaignLanguage } from './languages';


export interface FieldProblem {
  field: string;
  code: string;
  message: string;
}

export const CAMPAIGN_FORMATS = ['bot', 'channel'] as const;
export type CampaignFormat = (typeof CAMPAIGN_FORMATS)[number];

export interface CreativeInput {
  name: string;
  format: CampaignFormat;
  title: string;
  text: string;
  destinationUrl: string;
  buttonText: string;
  imageUrl: string | null;
  language: string;
  replaces: number | null;
}

export type Validated<T> = { ok: true; value: T } | { ok: false; errors: FieldProblem[] };

export const LIMITS = { name: 100, title: 100, text: 700, buttonText: 32, reason: 500, url: 2048 } as const;

// C0 and C1 controls (newline and tab included), DEL, and unpaired surrogates.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const SINGLE_LINE_FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
// The same, but a multi-line body may hold line breaks and tabs.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const MULTI_LINE_FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function problem(field: string, code: string, message: string): FieldProblem {
  return { field, code, message };
}

/** Checks a text of 1..max characters; returns a problem or null. */
export function checkText(field: string, value: unknown, max: number, multiLine = false): FieldProblem | null {
  if (value === undefined || value === null) return problem(field, 'required', `${field} is required`);
  if (typeof value !== 'string') return problem(field, 'invalid_type', `${field} must be a string`);
  if (value.length === 0) return problem(field, 'too_short', `${field} must have at least 1 character`);
  const excess = lengthExcess(value, max);
  if (excess) return problem(field, excess, lengthExcessMessage(field, excess, max));
  if ((multiLine ? MULTI_LINE_FORBIDDEN : SINGLE_LINE_FORBIDDEN).test(value)) {
    return problem(field, 'invalid_characters', `${field} must be plain text without control characters`);
  }
  if (value.trim().length === 0) return problem(field, 'blank', `${field} must not be only spaces`);
  return null;
}

/**
 * An absolute HTTPS URL without embedded credentials, spaces, control characters or backslashes (which
 * browsers silently rewrite), so what is stored is exactly where a click goes; its host a public name,
 * never an IP address, localhost or an internal name.
 */
export function checkHttpsUrl(field: string, value: unknown): FieldProblem | null {
  if (value === undefined || value === null) return problem(field, 'required', `${field} is required`);
  if (typeof value !== 'string') return problem(field, 'invalid_type', `${field} must be a string`);
  if (value.length === 0) return problem(field, 'required', `${field} is required`);
  if (value.length > LIMITS.url) return problem(field, 'too_long', `${field} must have at most ${LIMITS.url} characters`);
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  if (/[\s\u0000-\u001f\u007f-\u009f\\]/.test(value)) {
    return problem(field, 'invalid_url', `${field} must not contain spaces, control characters or backslashes`);
  }
  if (!/^https:\/\//i.test(value)) return problem(field, 'https_required', `${field} must be an https:// URL`);
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    return problem(field, 'invalid_url', `${field} is not a valid URL`);
  }
  if (parsed.protocol !== 'https:') return problem(field, 'https_required', `${field} must be an https:// URL`);
  const authority = value.slice('https://'.length).split(/[/?#]/, 1)[0] ?? '';
  if (parsed.username !== '' || parsed.password !== '' || authority.includes('@')) {
    return problem(field, 'credentials_not_allowed', `${field} must not contain a user name or password`);
  }
  if (parsed.hostname === '' || parsed.hostname.startsWith('.') || parsed.hostname.includes('..')) {
    return problem(field, 'invalid_url', `${field} has no valid host`);
  }
  return publicHostProblem(field, parsed);
}

const CREATIVE_FIELDS = new Set(['name', 'format', 'title', 'text', 'destinationUrl', 'buttonText', 'imageUrl', 'language', 'replaces']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Validates a create-campaign body; on success the value holds exactly the creative inputs. */
export function validateCreative(body: unknown): Validated<CreativeInput> {
  if (!isPlainObject(body)) return { ok: false, errors: [problem('(body)', 'invalid_type', 'the body must be a JSON object')] };
  const errors: FieldProblem[] = [];
  const add = (found: FieldProblem | null) => {
    if (found) errors.push(found);
  };

  for (const key of Object.keys(body)) {
    if (!CREATIVE_FIELDS.has(key)) errors.push(problem(key, 'unknown_field', `${key} is not a campaign input`));
  }
  add(checkText('name', body.name, LIMITS.name));
  add(checkText('title', body.title, LIMITS.title));
  add(checkText('text', body.text, LIMITS.text, true));
  add(checkText('buttonText', body.buttonText, LIMITS.buttonText));

  if (body.format === undefined || body.format === null) add(problem('format', 'required', 'format is required'));
  else if (typeof body.format !== 'string' || !(CAMPAIGN_FORMATS as readonly string[]).includes(body.format)) {
    add(problem('format', 'unsupported_format', 'format must be bot or channel'));
  }

  if (body.language === undefined || body.language === null) add(problem('language', 'required', 'language is required'));
  else if (typeof body.language !== 'string') add(problem('language', 'invalid_type', 'language must be a string'));
  else if (!isCampaignLanguage(body.language)) {
    add(problem('language', 'invalid_language', 'language must be a lowercase ISO 639-1 code such as en, or all'));
  }

  add(checkHttpsUrl('destinationUrl', body.destinationUrl));
  const noImage = body.imageUrl === undefined || body.imageUrl === null || body.imageUrl === '';
  if (!noImage) add(checkHttpsUrl('imageUrl', body.imageUrl));

  const noReplaces = body.replaces === undefined || body.replaces === null;
  if (!noReplaces && !(typeof body.replaces === 'number' && Number.isSafeInteger(body.replaces) && body.replaces > 0)) {
    add(problem('replaces', 'invalid_type', 'replaces must be the id (a positive integer) of one of your campaigns'));
  }

  if (errors.length > 0) return { ok: false, errors };
  return {
    ok: true,
    value: {
      name: body.name as string,
      format: body.format as CampaignFormat,
      title: body.title as string,
      text: body.text as string,
      destinationUrl: body.destinationUrl as string,
      buttonText: body.buttonText as string,
      imageUrl: noImage ? null : (body.imageUrl as string),
      language: body.language as string,
      replaces: noReplaces ? null : (body.replaces as number),
    },
  };
}

/** The body of a rejection: `{reason}` of 1..500 characters (line breaks allowed). */
export function validateRejection(body: unknown): Validated<{ reason: string }> {
  if (!isPlainObject(body)) return { ok: false, errors: [problem('(body)', 'invalid_type', 'the body must be a JSON object with a reason')] };
  const errors: FieldProblem[] = [];
  for (const key of Object.keys(body)) {
    if (key !== 'reason') errors.push(problem(key, 'unknown_field', `${key} is not accepted here`));
  }
  const found = checkText('reason', body.reason, LIMITS.reason, true);
  if (found) errors.push(found);
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: { reason: body.reason as string } };
}

/**
 * The body of a pause: nothing, `{}`, or `{reason}` of 1..500 characters (API.md: optional, shown with the
 * campaign and in the audit). Anything else is refused, as for a rejection.
 */
export function validatePause(body: unknown): Validated<{ reason: string | null }> {
  if (body === undefined || body === null) return { ok: true, value: { reason: null } };
  if (!isPlainObject(body)) return { ok: false, errors: [problem('(body)', 'invalid_type', 'the body must be a JSON object')] };
  const errors: FieldProblem[] = [];
  for (const key of Object.keys(body)) {
    if (key !== 'reason') errors.push(problem(key, 'unknown_field', `${key} is not accepted here`));
  }
  const given = body.reason !== undefined && body.reason !== null;
  const found = given ? checkText('reason', body.reason, LIMITS.reason, true) : null;
  if (found) errors.push(found);
  if (errors.length > 0) return { ok: false, errors };
  return { ok: true, value: { reason: given ? (body.reason as string) : null } };
}
