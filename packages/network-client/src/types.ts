/**
 * The network API's types, taken from the generated OpenAPI types (src/generated/openapi.ts), plus a
 * runtime check of the Ad object that follows the same schema (tests/publishers checks both against the
 * document the service serves).
 */
import type { components, operations } from './generated/openapi';

export type Ad = components['schemas']['Ad'];
export type DeliveryConfirmed = components['schemas']['DeliveryConfirmed'];
export type DeliveryConfirmation = components['schemas']['DeliveryConfirmation'];
export type Problem = components['schemas']['Problem'];
/** The query of GET /api/network/ad. */
export type AdQuery = NonNullable<operations['requestAd']['parameters']['query']>;

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

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Why `value` is not an Ad of the schema, or null when it is one. */
export function adProblem(value: unknown): string | null {
  if (!isRecord(value)) return 'not a JSON object';
  for (const field of AD_FIELDS) if (!(field in value)) return `missing ${field}`;
  const extra = Object.keys(value).find((key) => !(AD_FIELDS as readonly string[]).includes(key));
  if (extra !== undefined) return `unexpected field ${extra}`;
  const { campaign_id, title, text, button_text, image_url, click_url, delivery_token, expires_in, sponsored, billing } = value;
  if (typeof campaign_id !== 'number' || !Number.isInteger(campaign_id) || campaign_id < 1) return 'campaign_id is not a positive integer';
  for (const [name, field] of [['title', title], ['text', text], ['button_text', button_text], ['delivery_token', delivery_token]] as const) {
    if (typeof field !== 'string' || field.length === 0) return `${name} is not a non-empty string`;
  }
  if (image_url !== null && (typeof image_url !== 'string' || !image_url.startsWith('https://'))) return 'image_url is neither null nor an HTTPS link';
  if (typeof click_url !== 'string' || !/\/api\/network\/click\/[A-Za-z0-9._~-]+$/.test(click_url)) return 'click_url is not a click link';
  try {
    new URL(click_url);
  } catch {
    return 'click_url is not an absolute URL';
  }
  if (expires_in !== 3600) return 'expires_in is not 3600';
  if (sponsored !== true) return 'sponsored is not true';
  if (billing !== 'pilot_non_billable') return 'billing is not pilot_non_billable';
  return null;
}

export function isAd(value: unknown): value is Ad {
  return adProblem(value) === null;
}

export function isProblem(value: unknown): value is Problem {
  return (
    isRecord(value) &&
    typeof value.type === 'string' &&
    typeof value.title === 'string' &&
    typeof value.status === 'number' &&
    typeof value.detail === 'string' &&
    typeof value.code === 'string'
  );
}

export function isDeliveryConfirmed(value: unknown): value is DeliveryConfirmed {
  return isRecord(value) && value.status === 'confirmed' && typeof value.first_confirmation === 'boolean';
}
