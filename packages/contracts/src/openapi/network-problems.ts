/**
 * The problem answers of the network API, as the running system sends them through the gateway: for each
 * stable code its status, title and one real detail. The OpenAPI document lists them per response (the
 * code enum and one example each); tests/publishers/openapi.test.ts provokes every one of them and
 * compares the answer with its example. The answers come from several places (allocation, tracking, the
 * gateway, the key read model): they are written out here, and that comparison is what keeps them true.
 */
export interface ProblemAnswer {
  status: number;
  code: string;
  title: string;
  detail: string;
}

const answer = (status: number, code: string, title: string, detail: string): ProblemAnswer => ({ status, code, title, detail });

export const NETWORK_PROBLEMS = {
  invalidLanguage: answer(400, 'invalid_language', 'Bad request', 'language must be an ISO 639-1 code such as en, or a tag of one such as pt-BR'),
  invalidTestAnswer: answer(400, 'invalid_test_answer', 'Bad request', 'X-Pilot-Test-Answer must be one of 204, 429 or 503'),
  invalidDeliveryTestAnswer: answer(400, 'invalid_test_answer', 'Bad request', 'X-Pilot-Test-Answer must be one of 404 or 503 on a confirmation'),
  bodyNotAllowed: answer(400, 'body_not_allowed', 'Bad request', 'GET requests carry no body'),
  invalidJson: answer(400, 'invalid_json', 'Bad request', 'The body is not valid JSON'),
  invalidToken: answer(400, 'invalid_token', 'Bad request', 'token is not a delivery token'),
  missingKey: answer(401, 'missing_key', 'Unauthorized', 'Send the publisher key as Authorization: Bearer <key>'),
  invalidKey: answer(401, 'invalid_key', 'Unauthorized', 'The publisher key is invalid or revoked'),
  publisherNotApproved: answer(401, 'publisher_not_approved', 'Unauthorized', 'The publisher is not approved'),
  deliveryTokenNotFound: answer(404, 'token_not_found', 'Not found', 'No current allocation of this publisher has this token'),
  tokenExpired: answer(404, 'token_expired', 'Not found', 'The token expired (one hour after allocation)'),
  linkNotFound: answer(404, 'token_not_found', 'Not found', 'No such link'),
  linkExpired: answer(410, 'link_expired', 'Gone', 'The link expired (one hour after allocation)'),
  campaignInactive: answer(410, 'campaign_inactive', 'Gone', 'The campaign of this link is no longer active'),
  publisherInactive: answer(410, 'publisher_inactive', 'Gone', 'The publisher of this link is no longer active'),
  unsupportedMediaType: answer(415, 'unsupported_media_type', 'Unsupported media type', 'Send the body as application/json'),
  payloadTooLarge: answer(413, 'payload_too_large', 'Payload too large', 'The body must not exceed 200 characters'),
  rateLimited: answer(429, 'rate_limited', 'Too many requests', 'Over 60 ad requests per publisher per minute'),
  badGateway: answer(502, 'bad_gateway', 'Bad gateway', 'The service is unreachable; retry later'),
  serviceUnavailable: answer(503, 'service_unavailable', 'Service unavailable', 'The service could not complete the request; retry later'),
  gatewayTimeout: answer(504, 'gateway_timeout', 'Gateway timeout', 'The service did not answer in time; retry later'),
} as const satisfies Record<string, ProblemAnswer>;

/**
 * A problem code's `type` as the server writes it: the services give the platform's problemTypeOf under
 * their PUBLIC_BASE_URL (the site's page that explains the code).
 */
export type ProblemType = (code: string) => string;

/** The problem+json body of an answer, as the server writes it (HttpError.toBody). */
export function problemBody(problem: ProblemAnswer, problemType: ProblemType): Record<string, unknown> {
  return { type: problemType(problem.code), title: problem.title, status: problem.status, detail: problem.detail, code: problem.code };
}
