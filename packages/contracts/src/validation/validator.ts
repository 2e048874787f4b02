/**
 * A body validator compiled once from its schema: on success the value as the schema types it (Static),
 * else every failing field with its stable code, one problem per field, unknown fields first and then in
 * the order the schema declares its properties. A JSON null counts as an absent field, so a required
 * field given null is `required` and an optional one given null is left out.
 */
import type { Static, TObject } from '@sinclair/typebox';
import type { ErrorObject, ValidateFunction } from 'ajv';
import { ajv } from './ajv';
import type { FieldProblem, Validated } from './field-problem';

const DEFAULT_CODES: Record<string, string> = {
  required: 'required',
  additionalProperties: 'unknown_field',
  type: 'invalid_type',
  enum: 'not_allowed',
  const: 'not_allowed',
  format: 'invalid_format',
  pattern: 'invalid_format',
  minLength: 'too_short',
  maxLength: 'too_long',
};

function fieldOf(error: ErrorObject): string {
  if (error.keyword === 'required') return String((error.params as { missingProperty: string }).missingProperty);
  if (error.keyword === 'additionalProperties') return String((error.params as { additionalProperty: string }).additionalProperty);
  return error.instancePath.replace(/^\//, '').replace(/\//g, '.') || '(body)';
}

function codeOf(error: ErrorObject): string {
  const own = (error.params as { code?: unknown }).code;
  if (typeof own === 'string') return own;
  if (error.keyword === 'required' || error.keyword === 'additionalProperties') return DEFAULT_CODES[error.keyword] as string;
  const declared = (error.parentSchema as { 'x-error-code'?: string } | undefined)?.['x-error-code'];
  if (declared && error.keyword !== 'type') return declared;
  return DEFAULT_CODES[error.keyword] ?? 'invalid';
}

const TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  object: 'a JSON object',
  array: 'a list',
};

function messageOf(error: ErrorObject, field: string, code: string): string {
  const schema = error.parentSchema as { 'x-error-code'?: string; description?: string } | undefined;
  if (schema?.['x-error-code'] === code && schema.description) return schema.description;
  if (code === 'required') return `${field} is required`;
  if (code === 'unknown_field') return `${field} is not accepted here`;
  if (error.keyword === 'type') return `${field} must be ${TYPE_NAMES[String((error.params as { type: unknown }).type)] ?? 'of another type'}`;
  if (error.keyword === 'enum') return `${field} must be one of ${((error.params as { allowedValues: unknown[] }).allowedValues ?? []).join(', ')}`;
  if (error.keyword.startsWith('x-')) return error.message ?? `${field} is not valid`;
  return `${field} ${error.message ?? 'is not valid'}`;
}

/** One problem per field (the first ajv reports), unknown fields first, then in `order`. */
export function fieldProblemsOf(errors: ErrorObject[] | null | undefined, order: readonly string[]): FieldProblem[] {
  const byField = new Map<string, FieldProblem>();
  for (const error of errors ?? []) {
    const field = fieldOf(error);
    if (byField.has(field)) continue;
    const code = codeOf(error);
    byField.set(field, { field, code, message: messageOf(error, field, code) });
  }
  const rank = (field: string) => order.indexOf(field.split('.')[0] ?? field);
  return [...byField.values()].sort((a, b) => rank(a.field) - rank(b.field));
}

export const BODY_NOT_OBJECT: FieldProblem = { field: '(body)', code: 'invalid_type', message: 'the body must be a JSON object' };

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withoutNulls(body: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== null));
}

export type BodyValidator<S extends TObject> = (body: unknown) => Validated<Static<S>>;

export function validatorOf<S extends TObject>(schema: S): BodyValidator<S> {
  const validate = ajv.compile(schema) as ValidateFunction<Static<S>>;
  const order = Object.keys(schema.properties);
  return (body) => {
    if (!isPlainObject(body)) return { ok: false, errors: [BODY_NOT_OBJECT] };
    const present = withoutNulls(body);
    if (validate(present)) return { ok: true, value: present };
    return { ok: false, errors: fieldProblemsOf(validate.errors, order) };
  };
}

/** Compiles a plain JSON Schema (a stored document's, a cached item's) with the one ajv. */
export function compile<T = unknown>(schema: object): ValidateFunction<T> {
  return ajv.compile<T>(schema);
}
