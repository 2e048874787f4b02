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

  toBody(): ProblemBody {
    const body: ProblemBody = {
      type: `urn:pilot:problem:${this.code}`,
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

export const problems = {
  badRequest: (code: string, detail: string) => new HttpError(400, code, 'Bad request', detail),
  unauthorized: (code = 'unauthorized', detail = 'Authentication is required') => new HttpError(401, code, 'Unauthorized', detail),
  /** A network API call without a usable publisher key: 401 with the bearer challenge (RFC 6750). */
  publisherKeyRefused: (code: string, detail: string) =>
    new HttpError(401, code, 'Unauthorized', detail, undefined, { 'WWW-Authenticate': 'Bearer realm="pilot-network"' }),
  forbidden: (code = 'forbidden', detail = 'This account may not do this') => new HttpError(403, code, 'Forbidden', detail),
  notFound: (code = 'not_found', detail = 'Nothing is here') => new HttpError(404, code, 'Not found', detail),
  methodNotAllowed: () => new HttpError(405, 'method_not_allowed', 'Method not allowed', 'This method is not allowed here'),
  conflict: (code: string, detail: string) => new HttpError(409, code, 'Conflict', detail),
  gone: (code: string, detail: string) => new HttpError(410, code, 'Gone', detail),
  payloadTooLarge: (detail = 'The request body is too large') => new HttpError(413, 'payload_too_large', 'Payload too large', detail),
  unsupportedMediaType: () =>
    new HttpError(415, 'unsupported_media_type', 'Unsupported media type', 'Send the body as application/json'),
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
