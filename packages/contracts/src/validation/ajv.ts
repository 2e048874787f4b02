/**
 * The one ajv of every process: request bodies, events and the network API's documents are compiled here.
 * JSON Schema cannot say what some rules of the API are, so custom keywords say it, each giving the
 * stable 422 code of the failing check in its error's `params.code` (field-problems reads it):
 * - `x-text: {max, multiLine?}`: a free text (plain-text), counted in user-perceived characters;
 * - `x-https-url: {emptyIsNone?}`: a public HTTPS link without credentials (https-url);
 * - `x-telegram-link: true`: a publisher platform's link (telegram-link);
 * - `x-error-code: "<code>"`: an annotation, the code of any other failure of that schema but a wrong type.
 * `format: "utc-date-time"` is a schedule time (utc-date-time). OpenAPI 3.1 documents keep `x-` keywords.
 */
import Ajv, { type ErrorObject, type KeywordDefinition } from 'ajv';
import addFormats from 'ajv-formats';
import { httpsUrlProblem } from './https-url';
import { textProblem, type RuleProblem, type TextRule } from './plain-text';
import { telegramLinkProblem } from './telegram-link';
import { parseUtcDateTime } from './utc-date-time';

export const ajv = new Ajv({ allErrors: true, strict: true, verbose: true, coerceTypes: false, removeAdditional: false });
addFormats(ajv);
ajv.addFormat('utc-date-time', { type: 'string', validate: (value: string) => parseUtcDateTime(value) !== null });

/** A keyword of strings whose check returns the one problem of the value, or null. */
function ruleKeyword<S>(keyword: string, schemaType: 'object' | 'boolean', check: (field: string, value: string, rule: S) => RuleProblem | null): KeywordDefinition {
  const validate = (rule: S, value: string, _parentSchema?: unknown, context?: { parentDataProperty?: string | number }): boolean => {
    const field = String(context?.parentDataProperty ?? '(body)');
    const found = check(field, value, rule);
    validate.errors = found ? [{ keyword, message: found.message, params: { code: found.code } } as Partial<ErrorObject>] : [];
    return found === null;
  };
  validate.errors = [] as Partial<ErrorObject>[];
  return { keyword, type: 'string', schemaType, errors: true, validate };
}

ajv.addKeyword(ruleKeyword<TextRule>('x-text', 'object', (field, value, rule) => textProblem(field, value, rule)));
ajv.addKeyword(
  ruleKeyword<{ emptyIsNone?: boolean }>('x-https-url', 'object', (field, value, rule) => (rule.emptyIsNone && value === '' ? null : httpsUrlProblem(field, value))),
);
ajv.addKeyword(ruleKeyword<boolean>('x-telegram-link', 'boolean', (_field, value) => telegramLinkProblem(value)));
ajv.addKeyword({ keyword: 'x-error-code', schemaType: 'string' });
