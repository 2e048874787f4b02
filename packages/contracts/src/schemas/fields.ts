/** Field schemas shared by several contracts, so one rule has one definition and one code everywhere. */
import { Type, type TLiteral, type TUnion, type TUnsafe } from '@sinclair/typebox';

/** A free text of 1 to `max` user-perceived characters (custom keyword `x-text`). */
export function PlainText(max: number, description: string, multiLine = false) {
  return Type.String({ 'x-text': { max, multiLine }, description: `${description}: 1 to ${max} characters (grapheme clusters), plain text${multiLine ? ', line breaks allowed' : ''}` });
}

/** A creative text shown to end users: a PlainText that also refuses bidirectional control characters. */
export function CreativeText(max: number, description: string, multiLine = false) {
  return Type.String({
    'x-text': { max, multiLine, creative: true },
    description: `${description}: 1 to ${max} characters (grapheme clusters), plain text without text-direction controls${multiLine ? ', line breaks allowed' : ''}`,
  });
}

/** A public HTTPS link without credentials (custom keyword `x-https-url`); `emptyIsNone`: '' means none. */
export function HttpsUrl(description: string, emptyIsNone = false) {
  return Type.String({ 'x-https-url': { emptyIsNone }, description: `${description}: an absolute https:// URL naming a public host, without user name or password`, examples: ['https://example.com/landing'] });
}

/** One of a fixed set of strings; any other value, of any type, is refused with `code` (so no `type`). */
export function StringEnum<const T extends readonly string[]>(values: T, code: string, description?: string): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ enum: [...values], 'x-error-code': code, ...(description ? { description } : {}) });
}

/** One of a fixed list of strings in an answer or an event, as a union of literals (typed as that union). */
export function literals<const T extends readonly string[]>(values: T): TUnion<TLiteral<T[number]>[]> {
  return Type.Union(values.map((value) => Type.Literal(value as T[number])));
}

/** A positive integer id (campaigns, publishers). */
export const Id = Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

/** A numeric messaging-platform account id, as a string. */
export const AccountId = Type.String({ pattern: '^[0-9]{1,20}$', examples: ['1001'] });

export const Timestamp = Type.String({ format: 'date-time' });

export const REASON_MAX = 500;
export const Reason = PlainText(REASON_MAX, 'reason', true);

/** `{reason}`: the body of a rejection. */
export const ReasonBody = Type.Object({ reason: Reason }, { additionalProperties: false });

/** Nothing, `{}` or `{reason}`: the body of a pause. */
export const OptionalReasonBody = Type.Object({ reason: Type.Optional(Reason) }, { additionalProperties: false });

/** A paged list's `nextCursor`: an opaque string to pass as `cursor` for the next page, null on the last. */
export const NextCursor = Type.Union([Type.String({ description: 'pass as cursor for the next page' }), Type.Null()]);

/** What a list answers besides its page when asked `count=true`: the records its filters match, counted up to 100. */
export const ListCountFields = {
  total: Type.Optional(Type.Integer({ minimum: 0, description: 'the records the filters match (with count=true), at most 100 (an account\'s limit)' })),
  totalCapped: Type.Optional(Type.Boolean({ description: 'true when more records than total match' })),
};
