/**
 * Validation of PUT /api/workspace/placements/{slot}. Pure, so every rule is unit-tested; every failing
 * field is reported at once as {field, code, message}. Limits follow the campaign creative limits of
 * SPEC.md: title 1..100 and button label 1..32 user-perceived characters (graphemes), with the UTF-16
 * length capped as well (http-kit text-length); URLs name a public host (http-kit public-host).
 */
import { graphemeLength, lengthExcess, lengthExcessMessage, publicHostProblem } from '@pilot/http-kit';
import { PLACEMENT_STATUSES, type PlacementStatus } from './placement';

export interface FieldProblem {
  field: string;
  code: string;
  message: string;
}

export interface PlacementInput {
  title: string;
  buttonText: string;
  destinationUrl: string;
  imageUrl: string | null;
  status: PlacementStatus;
  startsAt: Date | null;
  endsAt: Date | null;
}

export type ValidationResult = { ok: true; value: PlacementInput } | { ok: false; errors: FieldProblem[] };

export const LIMITS = {
  title: { min: 1, max: 100 },
  buttonText: { min: 1, max: 32 },
  url: { max: 2048 },
} as const;

const KNOWN_FIELDS = new Set(['title', 'buttonText', 'destinationUrl', 'imageUrl', 'status', 'startsAt', 'endsAt']);

// C0/C1 controls (tab, newline and the rest) have no place in a one-line title or button label.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/;

function checkText(field: string, value: unknown, limits: { min: number; max: number }, errors: FieldProblem[]): string | undefined {
  if (value === undefined || value === null) {
    errors.push({ field, code: 'required', message: `${field} is required` });
    return undefined;
  }
  if (typeof value !== 'string') {
    errors.push({ field, code: 'invalid_type', message: `${field} must be a string` });
    return undefined;
  }
  if (value.trim().length === 0 || graphemeLength(value) < limits.min) {
    errors.push({ field, code: 'too_short', message: `${field} must have at least ${limits.min} visible character(s)` });
    return undefined;
  }
  const excess = lengthExcess(value, limits.max);
  if (excess) {
    errors.push({ field, code: excess, message: lengthExcessMessage(field, excess, limits.max) });
    return undefined;
  }
  if (CONTROL_CHARACTERS.test(value)) {
    errors.push({ field, code: 'invalid_characters', message: `${field} must not contain control characters` });
    return undefined;
  }
  return value;
}

/** An absolute HTTPS URL with a public host and without embedded credentials. */
function checkUrl(field: string, value: unknown, required: boolean, errors: FieldProblem[]): string | null | undefined {
  if (value === undefined || value === null) {
    if (required) errors.push({ field, code: 'required', message: `${field} is required` });
    return null;
  }
  if (typeof value !== 'string') {
    errors.push({ field, code: 'invalid_type', message: `${field} must be a string` });
    return undefined;
  }
  if (value.length > LIMITS.url.max) {
    errors.push({ field, code: 'too_long', message: `${field} must have at most ${LIMITS.url.max} characters` });
    return undefined;
  }
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    errors.push({ field, code: 'invalid_url', message: `${field} must be an absolute URL` });
    return undefined;
  }
  if (parsed.protocol !== 'https:') {
    errors.push({ field, code: 'https_required', message: `${field} must use https` });
    return undefined;
  }
  if (parsed.username !== '' || parsed.password !== '') {
    errors.push({ field, code: 'credentials_not_allowed', message: `${field} must not contain a user name or password` });
    return undefined;
  }
  if (parsed.hostname === '' || /\s/.test(value)) {
    errors.push({ field, code: 'invalid_url', message: `${field} must be an absolute URL` });
    return undefined;
  }
  const hostProblem = publicHostProblem(field, parsed);
  if (hostProblem) {
    errors.push(hostProblem);
    return undefined;
  }
  return value;
}

// ISO 8601 date-time in UTC: 2026-01-31T12:00Z, 2026-01-31T12:00:00Z, 2026-01-31T12:00:00.000Z (or +00:00).
const UTC_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?(?:Z|\+00:00)$/;

export function parseUtcDateTime(value: string): Date | null {
  const match = UTC_DATE_TIME.exec(value);
  if (!match) return null;
  const [, year, month, day, hour, minute, second = '0', fraction = '0'] = match;
  const millis = Number(fraction.padEnd(3, '0'));
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second), millis));
  // Date.UTC rolls 2026-02-30 over into March; a real date reads back the same fields.
  if (
    date.getUTCFullYear() !== Number(year) ||
    date.getUTCMonth() !== Number(month) - 1 ||
    date.getUTCDate() !== Number(day) ||
    date.getUTCHours() !== Number(hour) ||
    date.getUTCMinutes() !== Number(minute) ||
    date.getUTCSeconds() !== Number(second)
  ) {
    return null;
  }
  return date;
}

function checkDateTime(field: string, value: unknown, errors: FieldProblem[]): Date | null | undefined {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') {
    errors.push({ field, code: 'invalid_type', message: `${field} must be a string` });
    return undefined;
  }
  const parsed = parseUtcDateTime(value);
  if (!parsed) {
    errors.push({ field, code: 'invalid_datetime', message: `${field} must be an ISO 8601 date-time in UTC, such as 2026-01-31T12:00:00Z` });
    return undefined;
  }
  return parsed;
}

export function validatePlacementInput(body: unknown): ValidationResult {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { ok: false, errors: [{ field: '(body)', code: 'invalid_type', message: 'the body must be a JSON object' }] };
  }
  const input = body as Record<string, unknown>;
  const errors: FieldProblem[] = [];
  for (const field of Object.keys(input)) {
    if (!KNOWN_FIELDS.has(field)) errors.push({ field, code: 'unknown_field', message: `${field} is not a placement field` });
  }
  const title = checkText('title', input.title, LIMITS.title, errors);
  const buttonText = checkText('buttonText', input.buttonText, LIMITS.buttonText, errors);
  const destinationUrl = checkUrl('destinationUrl', input.destinationUrl, true, errors);
  const imageUrl = checkUrl('imageUrl', input.imageUrl, false, errors);
  let status: PlacementStatus | undefined;
  if (input.status === undefined || input.status === null) {
    errors.push({ field: 'status', code: 'required', message: 'status is required' });
  } else if (typeof input.status !== 'string' || !(PLACEMENT_STATUSES as readonly string[]).includes(input.status)) {
    errors.push({ field: 'status', code: 'not_allowed', message: `status must be one of ${PLACEMENT_STATUSES.join(', ')}` });
  } else {
    status = input.status as PlacementStatus;
  }
  const startsAt = checkDateTime('startsAt', input.startsAt, errors);
  const endsAt = checkDateTime('endsAt', input.endsAt, errors);
  if (startsAt && endsAt && endsAt.getTime() <= startsAt.getTime()) {
    errors.push({ field: 'endsAt', code: 'ends_before_start', message: 'endsAt must be after startsAt' });
  }
  if (
    errors.length > 0 ||
    title === undefined ||
    buttonText === undefined ||
    typeof destinationUrl !== 'string' ||
    imageUrl === undefined ||
    status === undefined ||
    startsAt === undefined ||
    endsAt === undefined
  ) {
    return { ok: false, errors };
  }
  return { ok: true, value: { title, buttonText, destinationUrl, imageUrl, status, startsAt, endsAt } };
}

/** Body of POST /api/site/placements/{slot}/impressions: {placementId}. */
export function validateImpressionInput(body: unknown): { ok: true; placementId: string } | { ok: false; errors: FieldProblem[] } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { ok: false, errors: [{ field: '(body)', code: 'invalid_type', message: 'the body must be a JSON object' }] };
  }
  const input = body as Record<string, unknown>;
  const errors: FieldProblem[] = [];
  for (const field of Object.keys(input)) {
    if (field !== 'placementId') errors.push({ field, code: 'unknown_field', message: `${field} is not expected` });
  }
  const placementId = input.placementId;
  if (placementId === undefined || placementId === null) {
    errors.push({ field: 'placementId', code: 'required', message: 'placementId is required' });
  } else if (typeof placementId !== 'string') {
    errors.push({ field: 'placementId', code: 'invalid_type', message: 'placementId must be a string' });
  } else if (!/^[A-Za-z0-9-]{1,64}$/.test(placementId)) {
    errors.push({ field: 'placementId', code: 'invalid_format', message: 'placementId is not a placement identifier' });
  }
  if (errors.length > 0 || typeof placementId !== 'string') return { ok: false, errors };
  return { ok: true, placementId };
}
