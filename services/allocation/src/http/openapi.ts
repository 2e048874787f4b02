/**
 * The machine-readable description of the network API (API.md): OpenAPI 3.1, version 0.1.0, labelled
 * pilot. It covers the three network endpoints (ad, delivery, click), their schemas, every status code,
 * the problem+json error body, the rate-limit and Retry-After headers and the bearer scheme. The schemas
 * under components are plain JSON Schema (2020-12 compatible) so a test validates live answers with them.
 */
import { AD_REQUESTS_PER_WINDOW, WINDOW_SECONDS } from '../domain/rate-limit';

export const API_VERSION = '0.1.0';
export const API_LABEL = 'pilot';

const problem = (status: number, description: string, code: string, headers?: Record<string, unknown>) => ({
  description,
  ...(headers ? { headers } : {}),
  content: {
    'application/problem+json': {
      schema: { $ref: '#/components/schemas/Problem' },
      example: { type: `urn:pilot:problem:${code}`, title: description, status, detail: description, code },
    },
  },
});

const unavailable = () =>
  problem(503, 'Service unavailable: retry later with bounded backoff', 'service_unavailable', {
    'Retry-After': { $ref: '#/components/headers/Retry-After' },
  });

const rateLimitHeaderRefs = {
  'RateLimit-Limit': { $ref: '#/components/headers/RateLimit-Limit' },
  'RateLimit-Remaining': { $ref: '#/components/headers/RateLimit-Remaining' },
  'RateLimit-Reset': { $ref: '#/components/headers/RateLimit-Reset' },
  'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
};

export function networkOpenApi(): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: {
      title: 'Publisher pilot network API',
      summary: 'Sponsored creatives for approved bots and channels (pilot, non-billable).',
      description:
        'Server-to-server API for approved publishers: request one creative, confirm its delivery, follow its click link. ' +
        'Nothing is billed: every event is a pilot_non_billable pilot event. Status: pilot.',
      version: API_VERSION,
      'x-label': API_LABEL,
      'x-status': API_LABEL,
    },
    servers: [{ url: '/', description: 'the service origin (PUBLIC_BASE_URL)' }],
    tags: [{ name: 'network', description: 'Publisher servers, authenticated with the publisher API key' }],
    security: [{ publisherKey: [] }],
    paths: {
      '/api/network/ad': {
        get: {
          operationId: 'requestAd',
          tags: ['network'],
          summary: 'Request one sponsored creative',
          description:
            'Chooses uniformly at random among active campaigns whose format equals the publisher type, whose language equals ' +
            'the requested one or is all, and that are not owned by the publisher\'s own account. ' +
            `Limited to ${AD_REQUESTS_PER_WINDOW} requests per publisher per ${WINDOW_SECONDS}-second fixed window, shared by all replicas.`,
          security: [{ publisherKey: [] }],
          parameters: [
            {
              name: 'language',
              in: 'query',
              required: false,
              description:
                'An ISO 639-1 code (en, tr, ru, ...) or a BCP 47 tag whose primary subtag is one (en-US, pt-br), in any case; selection uses the primary subtag, lowercased. Default en. Anything else (all, english, zz, empty) is 400 invalid_language.',
              schema: { type: 'string', pattern: '^[A-Za-z]{2}(-[A-Za-z0-9]{1,8})*$', maxLength: 35, default: 'en', examples: ['en', 'pt-BR'] },
            },
          ],
          responses: {
            '200': {
              description: 'One creative. Show it labelled as sponsored, keep click_url unchanged.',
              headers: { 'Cache-Control': { $ref: '#/components/headers/Cache-Control' }, ...rateLimitHeaderRefs },
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Ad' } } },
            },
            '204': {
              description: 'No creative matches (including when only own-account campaigns match). No body; send nothing.',
              headers: { ...rateLimitHeaderRefs },
            },
            '400': problem(400, 'Invalid language', 'invalid_language', rateLimitHeaderRefs),
            '401': problem(401, 'Key missing (missing_key), invalid or revoked (invalid_key), or publisher not approved (publisher_not_approved)',
              'invalid_key',
              { 'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate' } },
            ),
            '429': problem(429, `Over ${AD_REQUESTS_PER_WINDOW} requests per publisher per minute`, 'rate_limited', {
              'Retry-After': { $ref: '#/components/headers/Retry-After' },
              ...rateLimitHeaderRefs,
            }),
            '503': unavailable(),
          },
        },
      },
      '/api/network/delivery': {
        post: {
          operationId: 'confirmDelivery',
          tags: ['network'],
          summary: 'Confirm that the messaging platform reported a successful send',
          description:
            'Call only after a successful send; never for a failed one, and do not blindly retry after a send timeout. ' +
            'Idempotent: a repeated confirmation answers 200 with first_confirmation false.',
          security: [{ publisherKey: [] }],
          requestBody: {
            required: true,
            description: 'At most 200 characters.',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/DeliveryConfirmation' } } },
          },
          responses: {
            '200': {
              description: 'Delivery confirmed, or already confirmed',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/DeliveryConfirmed' } } },
            },
            '400': problem(400, 'Invalid JSON or invalid token', 'invalid_token'),
            '401': problem(401, 'Invalid publisher key', 'invalid_key', { 'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate' } }),
            '404': problem(404, 'Token expired (token_expired), unknown, or belonging to another publisher (token_not_found)', 'token_not_found'),
            '413': problem(413, 'Body over 200 characters', 'payload_too_large'),
            '503': unavailable(),
          },
        },
      },
      '/api/network/click/{token}': {
        parameters: [
          {
            name: 'token',
            in: 'path',
            required: true,
            description: 'The opaque click token of an ad response, as it appears in click_url.',
            schema: { type: 'string' },
          },
        ],
        get: {
          operationId: 'followClick',
          tags: ['network'],
          summary: 'Follow a click link: counts a click and redirects to the campaign destination',
          description: 'No key is required. The link lives 3600 seconds after allocation.',
          security: [],
          responses: {
            '302': { description: 'Redirect to the campaign destination', headers: { Location: { $ref: '#/components/headers/Location' } } },
            '404': problem(404, 'Unknown or malformed token', 'token_not_found'),
            '410': problem(410, 'Link expired (link_expired), or campaign or publisher no longer active (campaign_inactive, publisher_inactive)', 'link_expired'),
            '503': unavailable(),
          },
        },
        head: {
          operationId: 'probeClick',
          tags: ['network'],
          summary: 'Answers like GET but is never counted as a click',
          security: [],
          responses: {
            '302': { description: 'The link is valid', headers: { Location: { $ref: '#/components/headers/Location' } } },
            '404': { description: 'Unknown or malformed token' },
            '410': { description: 'Link expired, or campaign or publisher no longer active' },
            '503': { description: 'Service unavailable', headers: { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } },
          },
        },
      },
    },
    components: {
      securitySchemes: {
        publisherKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'Authorization: Bearer <PUBLISHER_API_KEY>. Generated once by the publisher owner; rotation revokes the previous key.',
        },
      },
      schemas: {
        Ad: {
          type: 'object',
          additionalProperties: false,
          required: ['campaign_id', 'title', 'text', 'button_text', 'image_url', 'click_url', 'delivery_token', 'expires_in', 'sponsored', 'billing'],
          properties: {
            campaign_id: { type: 'integer', minimum: 1, description: 'identifier of the allocated campaign' },
            title: { type: 'string', minLength: 1, maxLength: 100, description: 'creative title (plain text)' },
            text: { type: 'string', minLength: 1, maxLength: 700, description: 'plain-text body' },
            button_text: { type: 'string', minLength: 1, maxLength: 32, description: 'button label' },
            image_url: {
              anyOf: [{ type: 'string', format: 'uri', pattern: '^https://' }, { type: 'null' }],
              description: 'HTTPS image link, null when the creative has no image',
            },
            click_url: {
              type: 'string',
              format: 'uri',
              pattern: '/api/network/click/[A-Za-z0-9._~-]+$',
              description: 'absolute click link; keep it unchanged',
            },
            delivery_token: { type: 'string', minLength: 1, maxLength: 180, description: 'opaque; send it back to the delivery endpoint' },
            expires_in: { type: 'integer', const: 3600, description: 'seconds' },
            sponsored: { type: 'boolean', const: true },
            billing: { type: 'string', const: 'pilot_non_billable' },
          },
        },
        DeliveryConfirmation: {
          type: 'object',
          additionalProperties: false,
          required: ['token'],
          properties: { token: { type: 'string', minLength: 1, description: 'the delivery_token of an ad response' } },
        },
        DeliveryConfirmed: {
          type: 'object',
          additionalProperties: false,
          required: ['status', 'first_confirmation'],
          properties: {
            status: { type: 'string', const: 'confirmed' },
            first_confirmation: { type: 'boolean' },
          },
        },
        Problem: {
          type: 'object',
          description: 'RFC 9457 problem details with a stable snake_case code',
          required: ['type', 'title', 'status', 'detail', 'code'],
          properties: {
            type: { type: 'string' },
            title: { type: 'string' },
            status: { type: 'integer', minimum: 400, maximum: 599 },
            detail: { type: 'string' },
            code: { type: 'string', pattern: '^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$' },
          },
        },
      },
      headers: {
        'Cache-Control': { description: 'no-store: an ad is for one immediate placement', schema: { type: 'string', const: 'no-store' } },
        'Retry-After': { description: 'seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } },
        'RateLimit-Limit': { description: `requests allowed per window (${AD_REQUESTS_PER_WINDOW})`, schema: { type: 'integer' } },
        'RateLimit-Remaining': { description: 'requests left in the current window', schema: { type: 'integer', minimum: 0 } },
        'RateLimit-Reset': { description: 'seconds until the current window ends', schema: { type: 'integer', minimum: 1 } },
        'RateLimit-Policy': {
          description: `the quota policy: ${AD_REQUESTS_PER_WINDOW} requests per ${WINDOW_SECONDS}-second fixed window, per publisher`,
          schema: { type: 'string', const: `${AD_REQUESTS_PER_WINDOW};w=${WINDOW_SECONDS}` },
        },
        'WWW-Authenticate': { description: 'the bearer challenge', schema: { type: 'string' } },
        Location: { description: 'the campaign destination (HTTPS)', schema: { type: 'string', format: 'uri' } },
      },
    },
  };
}
