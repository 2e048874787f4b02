/** RFC 9457 problem details with a stable machine `code` that clients switch on. */
export interface FieldError {
  field: string;
  code: string;
  message: string;
}

export interface ProblemBody {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  errors?: FieldError[];
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** The site's page that explains every code: a problem's `type` is this page with the code as its fragment. */
export const ERRORS_PAGE_PATH = '/guide/errors';

/**
 * A problem's `type` (API.md): PUBLIC_BASE_URL + /guide/errors# + code. Without the base URL (a process that
 * was not given one) it is the same page as a relative reference, which RFC 9457 resolves against the request.
 */
export function problemTypeOf(code: string, publicBaseUrl?: string): string {
  return `${(publicBaseUrl ?? '').replace(/\/+$/, '')}${ERRORS_PAGE_PATH}#${code}`;
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly title: string,
    readonly detail: string = title,
    readonly errors?: FieldError[],
    readonly headers: Record<string, string> = {},
  ) {
    super(detail);
    this.name = 'HttpError';
  }

  toBody(publicBaseUrl?: string): ProblemBody {
    const body: ProblemBody = {
      type: problemTypeOf(this.code, publicBaseUrl),
      title: this.title,
      status: this.status,
      detail: this.detail,
      code: this.code,
    };
    if (this.errors) body.errors = this.errors;
    return body;
  }
}

export const RETRY_AFTER_SECONDS = 5;

const BEARER_REALM = 'Bearer realm="pilot-network"';

/** The WWW-Authenticate value of a refused publisher key: the realm, and the RFC 6750 error when a key was sent. */
export function bearerChallengeOf(code: string): string {
  return code === 'missing_key' ? BEARER_REALM : `${BEARER_REALM}, error="invalid_token", error_description="${code}"`;
}

export const problems = {
  badRequest: (code: string, detail: string) => new HttpError(400, code, 'Bad request', detail),
  unauthorized: (code = 'unauthorized', detail = 'Authentication is required') => new HttpError(401, code, 'Unauthorized', detail),
  /**
   * A network API call without a usable publisher key: 401 with the bearer challenge (RFC 6750 section 3):
   * no error attribute when no bearer key was sent, `error="invalid_token"` for a key that was refused.
   */
  publisherKeyRefused: (code: string, detail: string) =>
    new HttpError(401, code, 'Unauthorized', detail, undefined, { 'WWW-Authenticate': bearerChallengeOf(code) }),
  forbidden: (code = 'forbidden', detail = 'This account may not do this') => new HttpError(403, code, 'Forbidden', detail),
  notFound: (code = 'not_found', detail = 'Nothing is here') => new HttpError(404, code, 'Not found', detail),
  methodNotAllowed: () => new HttpError(405, 'method_not_allowed', 'Method not allowed', 'This method is not allowed here'),
  conflict: (code: string, detail: string) => new HttpError(409, code, 'Conflict', detail),
  gone: (code: string, detail: string) => new HttpError(410, code, 'Gone', detail),
  payloadTooLarge: (detail = 'The request body is too large') => new HttpError(413, 'payload_too_large', 'Payload too large', detail),
  unsupportedMediaType: (detail = 'Send the body as application/json') => new HttpError(415, 'unsupported_media_type', 'Unsupported media type', detail),
  validation: (errors: FieldError[]) =>
    new HttpError(422, 'validation_failed', 'Validation failed', 'One or more fields are invalid', errors),
  tooManyRequests: (retryAfterSeconds: number, detail = 'Too many requests') =>
    new HttpError(429, 'rate_limited', 'Too many requests', detail, undefined, {
      'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))),
    }),
  unavailable: (detail = 'The service could not complete the request; retry later') =>
    new HttpError(503, 'service_unavailable', 'Service unavailable', detail, undefined, { 'Retry-After': String(RETRY_AFTER_SECONDS) }),
  internal: () => new HttpError(500, 'internal_error', 'Internal error', 'Something went wrong on our side'),
};
