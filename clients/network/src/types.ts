/**
 * The network API's types, taken from the generated OpenAPI types (src/generated/openapi.ts). The run-time
 * checks of the same objects are in validation.ts (the document's schemas, compiled by ajv).
 */
import type { components, operations } from './generated/openapi.js';

export type Ad = components['schemas']['Ad'];
export type DeliveryConfirmed = components['schemas']['DeliveryConfirmed'];
export type DeliveryConfirmation = components['schemas']['DeliveryConfirmation'];
export type Problem = components['schemas']['Problem'];
/** The query of GET /api/network/ad. */
export type AdQuery = NonNullable<operations['requestAd']['parameters']['query']>;
/** The answer a test key forces with `X-Pilot-Test-Answer` (the sandbox; a live key ignores it). */
export type TestAnswer = NonNullable<NonNullable<operations['requestAd']['parameters']['header']>['X-Pilot-Test-Answer']>;
/** The answer a test key forces on a delivery confirmation with `X-Pilot-Test-Answer`. */
export type DeliveryTestAnswer = NonNullable<NonNullable<operations['confirmDelivery']['parameters']['header']>['X-Pilot-Test-Answer']>;

/** Every field of the Ad object, all required (the schema's `required` list). */
export const AD_FIELDS = [
  'campaign_id',
  'title',
  'text',
  'button_text',
  'image_url',
  'click_url',
  'delivery_token',
  'expires_in',
  'sponsored',
  'billing',
] as const satisfies readonly (keyof Ad)[];

// A compile-time check that AD_FIELDS names every key of the generated Ad type.
type Missing = Exclude<keyof Ad, (typeof AD_FIELDS)[number]>;
const _everyField: Missing extends never ? true : Missing = true;
void _everyField;
