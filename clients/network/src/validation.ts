/**
 * Checks the bodies of the API's answers with the schemas of its OpenAPI document (src/generated/schemas.ts,
 * copied from components.schemas by the generate script), compiled once by ajv:
 * - every field the schema lists must be there, with its type, constant, pattern, format and length;
 * - fields the schema does not list are ignored and left out of the result (forward compatible: a newer
 *   server may add fields, and the schemas leave their objects open; ajv's removeAdditional 'all' drops them);
 * - the creative's text limits of the network's specification are counted as people see characters (grapheme clusters), which
 *   JSON Schema cannot express; the schema's maxLength bounds the code points.
 */
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { AdSchema, DeliveryConfirmedSchema, ProblemSchema } from './generated/schemas.js';
import type { Ad, DeliveryConfirmed, Problem } from './types.js';

/** The character limits of the Ad's texts (the network's specification), in user-perceived characters. */
export const AD_CHARACTER_LIMITS = { title: 100, text: 700, button_text: 32 } as const;

export type Checked<T> = { ok: true; value: T } | { ok: false; problem: string };

let ajv: Ajv | undefined;
const compiled = new Map<object, ValidateFunction>();

function validatorOf(schema: object): ValidateFunction {
  if (!ajv) {
    ajv = new Ajv({ strict: true, allErrors: false, removeAdditional: 'all' });
    addFormats(ajv, ['uri']);
  }
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

function describe(error: ErrorObject | undefined): string {
  if (!error) return 'does not match the schema';
  const where = error.instancePath ? error.instancePath.slice(1).replace(/\//g, '.') : 'the body';
  if (error.keyword === 'required') return `missing ${(error.params as { missingProperty: string }).missingProperty}`;
  return `${where} ${error.message ?? 'is invalid'}`;
}

/** The body as the schema describes it (a copy, unknown fields left out), or why it is not. */
function check<T>(schema: object, body: unknown): Checked<T> {
  const copy: unknown = structuredClone(body);
  const validate = validatorOf(schema);
  if (!validate(copy)) return { ok: false, problem: describe(validate.errors?.[0]) };
  return { ok: true, value: copy as T };
}

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

function characters(value: string): number {
  let count = 0;
  for (const _segment of segmenter.segment(value)) count += 1;
  return count;
}

/** The Ad of a 200 answer, or why the body is not one. */
export function checkAd(body: unknown): Checked<Ad> {
  const checked = check<Ad>(AdSchema, body);
  if (!checked.ok) return checked;
  for (const [field, limit] of Object.entries(AD_CHARACTER_LIMITS) as [keyof typeof AD_CHARACTER_LIMITS, number][]) {
    if (characters(checked.value[field]) > limit) return { ok: false, problem: `${field} has more than ${limit} characters` };
  }
  return checked;
}

export function checkDeliveryConfirmed(body: unknown): Checked<DeliveryConfirmed> {
  return check<DeliveryConfirmed>(DeliveryConfirmedSchema, body);
}

export function checkProblem(body: unknown): Checked<Problem> {
  return check<Problem>(ProblemSchema, body);
}

/** Why `value` is not an Ad of the schema, or null when it is one (unknown fields are not a reason). */
export function adProblem(value: unknown): string | null {
  const checked = checkAd(value);
  return checked.ok ? null : checked.problem;
}

export function isAd(value: unknown): value is Ad {
  return checkAd(value).ok;
}

export function isProblem(value: unknown): value is Problem {
  return checkProblem(value).ok;
}

export function isDeliveryConfirmed(value: unknown): value is DeliveryConfirmed {
  return checkDeliveryConfirmed(value).ok;
}
