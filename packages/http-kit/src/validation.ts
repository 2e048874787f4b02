/**
 * One ajv instance for the process; every schema is compiled once, when the route is declared.
 * A schema validates the request, documents it, and (through JSONSchemaType) types the handler.
 */
import Ajv, { type ErrorObject, type JSONSchemaType, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { RequestHandler } from 'express';
import { problems, type FieldError } from '@pilot/problems';

export const ajv = new Ajv({ allErrors: true, strict: true, coerceTypes: false, removeAdditional: false });
addFormats(ajv);

function fieldOf(error: ErrorObject): string {
  if (error.keyword === 'required') return String((error.params as { missingProperty: string }).missingProperty);
  if (error.keyword === 'additionalProperties') {
    return String((error.params as { additionalProperty: string }).additionalProperty);
  }
  return error.instancePath.replace(/^\//, '').replace(/\//g, '.') || '(body)';
}

const CODE_BY_KEYWORD: Record<string, string> = {
  required: 'required',
  additionalProperties: 'unknown_field',
  type: 'invalid_type',
  minLength: 'too_short',
  maxLength: 'too_long',
  enum: 'not_allowed',
  format: 'invalid_format',
  pattern: 'invalid_format',
};

export function fieldErrorsOf(errors: ErrorObject[] | null | undefined): FieldError[] {
  const seen = new Set<string>();
  const out: FieldError[] = [];
  for (const error of errors ?? []) {
    const field = fieldOf(error);
    const code = CODE_BY_KEYWORD[error.keyword] ?? 'invalid';
    const key = `${field}:${code}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ field, code, message: error.message ?? 'is invalid' });
  }
  return out;
}

export function compile<T>(schema: JSONSchemaType<T> | object): ValidateFunction<T> {
  return ajv.compile<T>(schema as JSONSchemaType<T>);
}

/** Express middleware: a body that does not match the schema is 422 listing every failing field. */
export function validateBody<T>(schema: JSONSchemaType<T> | object): RequestHandler {
  const validate = compile<T>(schema);
  return (req, _res, next) => {
    if (req.body === undefined || req.body === null || typeof req.body !== 'object' || Array.isArray(req.body)) {
      next(problems.validation([{ field: '(body)', code: 'invalid_type', message: 'must be a JSON object' }]));
      return;
    }
    if (!validate(req.body)) {
      next(problems.validation(fieldErrorsOf(validate.errors)));
      return;
    }
    next();
  };
}

/** A single query parameter as a string; repeated or missing parameters are undefined. */
export function queryString(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** A path or query id: a positive integer, else null. */
export function positiveIntOf(value: unknown): number | null {
  if (typeof value !== 'string' || !/^[1-9][0-9]{0,15}$/.test(value)) return null;
  const parsed = Number(value);
  return Number.isSafeInteger(parsed) ? parsed : null;
}
