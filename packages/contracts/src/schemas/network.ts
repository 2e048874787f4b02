/**
 * The network API's bodies (SPEC.md, API.md "Network API"): field names are snake_case because SPEC.md
 * fixes them. They are the component schemas of the network API's OpenAPI document, which
 * @pilot/network-client generates its types and validators from.
 */
import { Type, type Static } from '@sinclair/typebox';
import { UTF16_UNITS_PER_CHARACTER } from '../validation/text-length';

/**
 * The creative text limits of SPEC.md count characters as a person sees them (grapheme clusters), with at
 * most UTF16_UNITS_PER_CHARACTER (8) UTF-16 code units each (text-length). JSON Schema's maxLength counts
 * code points, so the schema states the code-unit bound, which no accepted text exceeds, and the
 * description the character limit.
 */
const textLimit = (characters: number, what: string) =>
  Type.String({
    minLength: 1,
    maxLength: characters * UTF16_UNITS_PER_CHARACTER,
    description: `${what}: 1 to ${characters} characters (user-perceived characters, grapheme clusters), at most ${characters * UTF16_UNITS_PER_CHARACTER} UTF-16 code units`,
  });

export const AD_LIFETIME_SECONDS = 3600;

/**
 * The ad request limit (SPEC.md, API.md): this many requests per publisher per fixed window of
 * AD_REQUEST_WINDOW_SECONDS, shared by every replica; its RateLimit headers and the 429 state it.
 */
export const AD_REQUESTS_PER_WINDOW = 60;
export const AD_REQUEST_WINDOW_SECONDS = 60;

/** Why nothing qualified: the values of the Pilot-No-Fill-Reason header of an ad request's 204 (API.md). */
export const NO_FILL_REASONS = ['no_active_campaign', 'no_campaign_for_format', 'no_campaign_for_language', 'own_campaigns_only'] as const;
export type NoFillReason = (typeof NO_FILL_REASONS)[number];

/**
 * The answers' objects are open: the network may add fields without notice (the guide's compatibility
 * policy), so a strict model generated from this document in any language keeps working.
 */
const OPEN_OBJECT = 'The network may add fields to this object without notice: ignore the ones you do not know.';

/** One sponsored creative: the 200 of GET /api/network/ad. */
export const Ad = Type.Object(
  {
    campaign_id: Type.Integer({ minimum: 1, description: 'identifier of the allocated campaign' }),
    title: textLimit(100, 'creative title (plain text)'),
    text: textLimit(700, 'plain-text body'),
    button_text: textLimit(32, 'button label'),
    image_url: Type.Union([Type.String({ format: 'uri', pattern: '^https://' }), Type.Null()], {
      description: 'HTTPS image link, null when the creative has no image',
    }),
    click_url: Type.String({ format: 'uri', pattern: '/api/network/click/[A-Za-z0-9._~-]+$', description: 'absolute click link; keep it unchanged' }),
    delivery_token: Type.String({ minLength: 1, maxLength: 180, description: 'opaque; send it back to the delivery endpoint' }),
    expires_in: Type.Unsafe<number>({ type: 'integer', const: AD_LIFETIME_SECONDS, description: 'seconds' }),
    sponsored: Type.Literal(true),
    billing: Type.Literal('pilot_non_billable'),
  },
  { description: OPEN_OBJECT },
);
export type Ad = Static<typeof Ad>;

/** Body of POST /api/network/delivery. */
export const DeliveryConfirmation = Type.Object(
  { token: Type.String({ minLength: 1, description: 'the delivery_token of an ad response' }) },
  { description: 'Other fields are ignored.' },
);
export type DeliveryConfirmation = Static<typeof DeliveryConfirmation>;

/** The 200 of POST /api/network/delivery. */
export const DeliveryConfirmed = Type.Object(
  { status: Type.Literal('confirmed'), first_confirmation: Type.Boolean() },
  { description: OPEN_OBJECT },
);
export type DeliveryConfirmed = Static<typeof DeliveryConfirmed>;

/** RFC 9457 problem details with a stable snake_case code: every error of both APIs. */
export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer({ minimum: 400, maximum: 599 }),
    detail: Type.String(),
    code: Type.String({ pattern: '^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$' }),
  },
  { description: 'RFC 9457 problem details with a stable snake_case code' },
);
export type Problem = Static<typeof Problem>;

/** A 422 of the workspace API: every failing field with its stable code. */
export const ValidationProblem = Type.Composite(
  [
    Problem,
    Type.Object({
      errors: Type.Array(Type.Object({ field: Type.String(), code: Type.String({ pattern: '^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$' }), message: Type.String() })),
    }),
  ],
  { description: 'validation_failed: every failing field of the body, each with a stable code' },
);
