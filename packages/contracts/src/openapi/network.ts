/**
 * The machine-readable description of the network API (API.md): OpenAPI 3.1, version 0.1.0, labelled
 * pilot, served by allocation at GET /api/network/openapi.json. It covers the three network endpoints
 * (ad, delivery, click), their schemas, every status code with the problem codes each answers (an enum per
 * response, one real example per code, the gateway's 502 and 504 included), the rate-limit and
 * Retry-After headers and the bearer scheme. The schemas under components are the contracts' own
 * (schemas/network.ts, JSON Schema 2020-12 compatible): tests validate live answers with them, and
 * @pilot/network-client validates the Ad with them (its copy is generated from this document).
 */
import { languagePattern, MAX_LANGUAGE_TAG_LENGTH } from '../schemas/languages';
import { Ad, AD_REQUEST_WINDOW_SECONDS, AD_REQUESTS_PER_WINDOW, DeliveryConfirmation, DeliveryConfirmed, NO_FILL_REASONS, Problem } from '../schemas/network';
import { NETWORK_PROBLEMS, problemBody, type ProblemAnswer, type ProblemType } from './network-problems';

export const NETWORK_API_VERSION = '0.1.0';
export const NETWORK_API_LABEL = 'pilot';

/** An Ad as the service answers it: its tokens were sealed by the service's code (with a secret of no deployment). */
const AD_EXAMPLE: Ad = {
  campaign_id: 12,
  title: 'Learn Turkish in 10 minutes a day',
  text: 'Short daily lessons. Free for the first week.',
  button_text: 'Try it',
  image_url: null,
  click_url: 'https://pilot.example/api/network/click/Aw3rw8_bvS8kS27yrC_sHzrej8ZlzgynOO5hz_4qgq2Lvj57ekThL-bGz_IBYxuka3TO6Ml8ia0e63458d3j62iJUXabdE1tbu4-sRq5',
  delivery_token: 'Aw3rw6Tol3US8RDeUcZyy9IoEag-S5jAPydX7ekbqrDucxTnxe-b2_8Auh194JPhXi6vTG8pNlkKbwwnQcOZYen0qXFtVnk849CcCjjX',
  expires_in: 3600,
  sponsored: true,
  billing: 'pilot_non_billable',
};

/**
 * A problem response: its status, the codes it answers (the schema's `code` enum) and each code's real
 * body as an example. Every answer passed must have that status.
 */
const problem = (problemType: ProblemType, description: string, answers: readonly ProblemAnswer[], headers?: Record<string, unknown>) => {
  const status = answers[0]!.status;
  if (answers.some((a) => a.status !== status)) throw new Error(`one response, one status: ${answers.map((a) => a.code).join(', ')}`);
  return {
    description,
    ...(headers ? { headers } : {}),
    content: {
      'application/problem+json': {
        schema: {
          allOf: [
            { $ref: '#/components/schemas/Problem' },
            {
              type: 'object',
              properties: { status: { type: 'integer', const: status }, code: { type: 'string', enum: [...new Set(answers.map((a) => a.code))] } },
            },
          ],
        },
        examples: Object.fromEntries(answers.map((a) => [a.code, { summary: a.code, value: problemBody(a, problemType) }])),
      },
    },
  };
};

const testMark = { 'X-Pilot-Test': { $ref: '#/components/headers/X-Pilot-Test' } };

const DEAD_LINK_PAGE =
  'A request that prefers text/html (a reader\'s browser) gets a small page of the site instead; any other (Accept */*, none, a JSON type) gets problem+json.';

const DEAD_LINK_HTML_EXAMPLE =
  '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<title>This offer has ended · Publisher pilot</title>\n</head>\n' +
  '<body>\n<main>\n<h1>This offer has ended</h1>\n<p>The offer behind this sponsored link is no longer available.</p>\n' +
  '<p><a href="/">Go to the Publisher pilot home page</a></p>\n</main>\n</body>\n</html>\n';

/** A click's 404 or 410: problem+json, or the site's small page for a browser (both vary with Accept). */
const deadLinkPage = (response: ReturnType<typeof problem>) => ({
  ...response,
  headers: { Vary: { $ref: '#/components/headers/Vary' } },
  content: { ...response.content, 'text/html': { schema: { type: 'string', description: 'a small HTML page of the site' }, example: DEAD_LINK_HTML_EXAMPLE } },
});

const retryAfter = { 'Retry-After': { $ref: '#/components/headers/Retry-After' } };
const bearerChallenge = { 'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate' } };

const unavailable = (problemType: ProblemType) =>
  problem(problemType, 'Service unavailable: retry after Retry-After seconds with bounded backoff', [NETWORK_PROBLEMS.serviceUnavailable], retryAfter);

/** The entry point (gateway) answers these when the service behind it does not: treat like 503 without a hint. */
const gatewayAnswers = (problemType: ProblemType) => ({
  '502': problem(problemType, 'Bad gateway: the service behind the entry point is unreachable. Back off and retry (no Retry-After).', [NETWORK_PROBLEMS.badGateway]),
  '504': problem(problemType, 'Gateway timeout: the service behind the entry point did not answer in time. Back off and retry (no Retry-After).', [
    NETWORK_PROBLEMS.gatewayTimeout,
  ]),
});

const keyRefused = (problemType: ProblemType) =>
  problem(
    problemType,
    'Key missing (no Authorization header, another scheme than Bearer, or the scheme alone: missing_key, with a bare bearer challenge); unknown, malformed or revoked (invalid_key); the current key of a platform that is paused, rejected or not yet approved (publisher_not_approved); the challenge of a refused key says error="invalid_token" (RFC 6750). Do not retry in a loop.',
    [NETWORK_PROBLEMS.missingKey, NETWORK_PROBLEMS.invalidKey, NETWORK_PROBLEMS.publisherNotApproved],
    bearerChallenge,
  );

const rateLimitHeaderRefs = {
  'RateLimit-Limit': { $ref: '#/components/headers/RateLimit-Limit' },
  'RateLimit-Remaining': { $ref: '#/components/headers/RateLimit-Remaining' },
  'RateLimit-Reset': { $ref: '#/components/headers/RateLimit-Reset' },
  'RateLimit-Policy': { $ref: '#/components/headers/RateLimit-Policy' },
};

type PathItems = Record<string, Record<string, unknown>>;

/** Every answer carries X-Request-Id (the gateway sets it): each response of each operation says so. */
function withRequestIds(paths: PathItems): PathItems {
  const requestId = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } };
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      const responses = (operation as { responses?: Record<string, { headers?: Record<string, unknown> }> }).responses;
      for (const response of Object.values(responses ?? {})) response.headers = { ...response.headers, ...requestId };
    }
  }
  return paths;
}

export interface NetworkOpenApiOptions {
  /** PUBLIC_BASE_URL (the service always passes it): the links of contact and externalDocs, left out without it. */
  publicBaseUrl?: string;
  /** The `type` of a problem code, as the server writes it: each problem example's body carries it. */
  problemType: ProblemType;
}

/** The header a test key sends to force one of `answers` (the sandbox). */
const testAnswerHeader = (description: string, answers: string[]) => ({
  name: 'X-Pilot-Test-Answer',
  in: 'header',
  required: false,
  description,
  schema: { type: 'string', enum: answers },
});

/** The document. */
export function networkOpenApi({ publicBaseUrl, problemType }: NetworkOpenApiOptions): Record<string, unknown> {
  const site = publicBaseUrl === undefined ? undefined : `${publicBaseUrl.replace(/\/+$/, '')}/`;
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: {
      title: 'Publisher pilot network API',
      summary: 'Sponsored creatives for approved bots and channels (pilot, non-billable).',
      description:
        'Server-to-server API for approved publishers: request one creative, confirm its delivery, follow its click link. ' +
        'Nothing is billed: every event is a pilot_non_billable pilot event. Status: pilot. ' +
        'Errors are application/problem+json (RFC 9457) with a stable snake_case code: switch on code; each response lists its codes, ' +
        'and type is the site\'s page that explains the code (PUBLIC_BASE_URL/guide/errors#<code>). ' +
        'A method a path does not list (POST on the ad path, OPTIONS, DELETE on the delivery path, ...) is 405 method_not_allowed with Allow. ' +
        'Every answer carries X-Request-Id: quote it to support. Fields may be added to answers, codes and headers without notice; ' +
        'removals are announced in the guide\'s changelog (PUBLIC_BASE_URL/guide/changelog) before they happen.',
      version: NETWORK_API_VERSION,
      contact: { name: 'The pilot network administrators (reachable from the workspace)', ...(site ? { url: site } : {}) },
      license: { name: 'MIT', identifier: 'MIT' },
      'x-label': NETWORK_API_LABEL,
      'x-status': NETWORK_API_LABEL,
    },
    ...(site
      ? { externalDocs: { description: 'Publishers: from a key to your first sponsored message (the publishers guide; the workspace links to it)', url: site } }
      : {}),
    servers: [{ url: '/', description: 'the service origin (PUBLIC_BASE_URL)' }],
    tags: [{ name: 'network', description: 'Publisher servers, authenticated with the publisher API key' }],
    security: [{ publisherKey: [] }],
    paths: withRequestIds({
      '/api/network/ad': {
        get: {
          operationId: 'requestAd',
          tags: ['network'],
          summary: 'Request one sponsored creative',
          description:
            'Chooses uniformly at random among active campaigns whose format equals the publisher type, whose language equals ' +
            'the requested one or is all, and that are not owned by the publisher\'s own account. ' +
            `Limited to ${AD_REQUESTS_PER_WINDOW} requests per publisher per ${AD_REQUEST_WINDOW_SECONDS}-second fixed window, shared by all replicas. ` +
            'With a test key (pilot_pk_test_..., the sandbox) the answer is always the fixed test creative (campaign_id 4294967295, ' +
            'sponsored: true, a click link to the site\'s /sandbox page; its delivery and click answer as live ones but are never counted), ' +
            'whatever the platform\'s status, with X-Pilot-Test: true, on one limit window shared by the test keys of the owner\'s account.',
          security: [{ publisherKey: [] }],
          parameters: [
            testAnswerHeader(
              'Test keys only (the sandbox): forces this answer, to test error handling: 204 (no body), 429 rate_limited with ' +
                'Retry-After, 503 service_unavailable with Retry-After. Any other value is 400 invalid_test_answer. A live key ignores it.',
              ['204', '429', '503'],
            ),
            {
              name: 'language',
              in: 'query',
              required: false,
              description:
                'An ISO 639-1 code (en, tr, ru, ...) or a BCP 47 tag whose primary subtag is one (en-US, pt-br), in any case; selection uses the primary subtag, lowercased. Default en. Anything else (all, english, zz, empty) is 400 invalid_language. ' +
                'The pattern lists the ISO 639-1 codes and the subtag structure; the server also refuses a tag that repeats a variant or an extension.',
              schema: {
                type: 'string',
                minLength: 2,
                maxLength: MAX_LANGUAGE_TAG_LENGTH,
                pattern: languagePattern(),
                default: 'en',
                examples: ['en', 'pt-BR'],
              },
            },
          ],
          responses: {
            '200': {
              description: 'One creative. Show it labelled as sponsored, keep click_url unchanged.',
              headers: { 'Cache-Control': { $ref: '#/components/headers/Cache-Control' }, ...rateLimitHeaderRefs, ...testMark },
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Ad' }, example: AD_EXAMPLE } },
            },
            '204': {
              description: 'No creative matches (including when only own-account campaigns match). No body; send nothing. Pilot-No-Fill-Reason says why.',
              headers: {
                'Cache-Control': { $ref: '#/components/headers/Cache-Control' },
                'Pilot-No-Fill-Reason': { $ref: '#/components/headers/Pilot-No-Fill-Reason' },
                ...rateLimitHeaderRefs,
                ...testMark,
              },
            },
            '400': problem(
              problemType,
              'Invalid language (invalid_language) or, with a test key, an X-Pilot-Test-Answer other than 204, 429 or 503 (invalid_test_answer): ' +
                'both carry the RateLimit headers and use up one of the minute\'s 60 requests. A GET sent with a body (body_not_allowed) is refused by ' +
                'the entry point before the key is read: it carries no RateLimit headers and uses up nothing. Do not retry unchanged.',
              [NETWORK_PROBLEMS.invalidLanguage, NETWORK_PROBLEMS.bodyNotAllowed, NETWORK_PROBLEMS.invalidTestAnswer],
              rateLimitHeaderRefs,
            ),
            '401': keyRefused(problemType),
            '429': problem(problemType, `Over ${AD_REQUESTS_PER_WINDOW} requests per publisher per minute: wait Retry-After seconds`, [NETWORK_PROBLEMS.rateLimited], {
              ...retryAfter,
              ...rateLimitHeaderRefs,
              ...testMark,
            }),
            ...gatewayAnswers(problemType),
            '503': unavailable(problemType),
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
          parameters: [
            testAnswerHeader(
              'Test keys only (the sandbox): forces this answer once the body is valid, to test error handling: 404 token_expired, ' +
                '503 service_unavailable with Retry-After. Any other value is 400 invalid_test_answer. A live key ignores it.',
              ['404', '503'],
            ),
          ],
          requestBody: {
            required: true,
            description:
              'At most 200 characters of plain (uncompressed) UTF-8 JSON: Content-Type application/json (or none), no charset other than utf-8, ' +
              'no Content-Encoding other than identity (else 415 unsupported_media_type). Fields other than token are ignored.',
            content: {
              'application/json': { schema: { $ref: '#/components/schemas/DeliveryConfirmation' }, example: { token: AD_EXAMPLE.delivery_token } },
            },
          },
          responses: {
            '200': {
              description: 'Delivery confirmed, or already confirmed',
              headers: { 'Cache-Control': { $ref: '#/components/headers/Cache-Control' }, ...testMark },
              content: {
                'application/json': { schema: { $ref: '#/components/schemas/DeliveryConfirmed' }, example: { status: 'confirmed', first_confirmation: true } },
              },
            },
            '400': problem(
              problemType,
              'The body is not JSON (invalid_json), or not {"token": <a delivery token>} (invalid_token); with a test key, an X-Pilot-Test-Answer other than 404 or 503 (invalid_test_answer)',
              [NETWORK_PROBLEMS.invalidJson, NETWORK_PROBLEMS.invalidToken, NETWORK_PROBLEMS.invalidDeliveryTestAnswer],
            ),
            '401': keyRefused(problemType),
            '404': problem(problemType, 'Token unknown or belonging to another publisher (token_not_found), or older than an hour (token_expired)', [
              NETWORK_PROBLEMS.deliveryTokenNotFound,
              NETWORK_PROBLEMS.tokenExpired,
            ]),
            '413': problem(problemType, 'Body over 200 characters', [NETWORK_PROBLEMS.payloadTooLarge]),
            '415': problem(
              problemType,
              'A declared Content-Type other than JSON, a charset other than utf-8, a Content-Encoding other than identity, or a body that is not UTF-8 text',
              [NETWORK_PROBLEMS.unsupportedMediaType],
            ),
            ...gatewayAnswers(problemType),
            '503': unavailable(problemType),
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
            '400': problem(problemType, 'A GET sent with a body', [NETWORK_PROBLEMS.bodyNotAllowed]),
            '404': deadLinkPage(problem(problemType, `Unknown or malformed token. ${DEAD_LINK_PAGE}`, [NETWORK_PROBLEMS.linkNotFound])),
            '410': deadLinkPage(
              problem(problemType, `Link expired (link_expired), or campaign or publisher no longer active (campaign_inactive, publisher_inactive). ${DEAD_LINK_PAGE}`, [
                NETWORK_PROBLEMS.linkExpired,
                NETWORK_PROBLEMS.campaignInactive,
                NETWORK_PROBLEMS.publisherInactive,
              ]),
            ),
            ...gatewayAnswers(problemType),
            '503': unavailable(problemType),
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
            '502': { description: 'Bad gateway: the service behind the entry point is unreachable' },
            '503': { description: 'Service unavailable', headers: retryAfter },
            '504': { description: 'Gateway timeout: the service behind the entry point did not answer in time' },
          },
        },
      },
    }),
    components: {
      securitySchemes: {
        publisherKey: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Authorization: Bearer <PUBLISHER_API_KEY>. Generated once by the publisher owner; rotation revokes the previous key. ' +
            'A live key starts with pilot_pk_; a test key (the sandbox: made by the owner whatever the platform\'s status, answered ' +
            'with a test creative, never counted) starts with pilot_pk_test_.',
        },
      },
      schemas: { Ad, DeliveryConfirmation, DeliveryConfirmed, Problem },
      headers: {
        'Cache-Control': { required: true, description: 'no-store: an answer of the network is for one immediate use', schema: { type: 'string', const: 'no-store' } },
        'Retry-After': { required: true, description: 'seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } },
        'RateLimit-Limit': { required: true, description: `requests allowed per window (${AD_REQUESTS_PER_WINDOW})`, schema: { type: 'integer' } },
        'RateLimit-Remaining': { required: true, description: 'requests left in the current window', schema: { type: 'integer', minimum: 0 } },
        'RateLimit-Reset': { required: true, description: 'seconds until the current window ends', schema: { type: 'integer', minimum: 1 } },
        'RateLimit-Policy': {
          required: true,
          description: `the quota policy: ${AD_REQUESTS_PER_WINDOW} requests per ${AD_REQUEST_WINDOW_SECONDS}-second fixed window, per publisher`,
          schema: { type: 'string', const: `${AD_REQUESTS_PER_WINDOW};w=${AD_REQUEST_WINDOW_SECONDS}` },
        },
        'WWW-Authenticate': {
          required: true,
          description: 'the bearer challenge (RFC 6750): Bearer realm="pilot-network", with error="invalid_token" and the code as error_description when a key was sent and refused',
          schema: { type: 'string' },
        },
        'X-Pilot-Test': { description: 'true on every answer to a test key (the sandbox): nothing of it is counted', schema: { type: 'string', const: 'true' } },
        'Pilot-No-Fill-Reason': {
          required: true,
          description:
            'why nothing qualified: no_active_campaign (nothing active at all), no_campaign_for_format (nothing of your platform\'s format), ' +
            'no_campaign_for_language (nothing in this language or in all), own_campaigns_only (only your own account\'s campaigns qualify). ' +
            'A forced 204 of the sandbox says no_active_campaign. New reasons may be added: treat an unknown one as no fill.',
          schema: { type: 'string', enum: [...NO_FILL_REASONS] },
        },
        'X-Request-Id': {
          required: true,
          description: 'on every answer: the request\'s id in the network\'s logs. Quote it when you ask the administrators about an answer.',
          schema: { type: 'string' },
        },
        Vary: { required: true, description: 'Accept: the answer depends on it', schema: { type: 'string' } },
        Location: { required: true, description: 'the campaign destination (HTTPS)', schema: { type: 'string', format: 'uri' } },
      },
    },
  };
}
