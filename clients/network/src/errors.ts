/** What the client throws. Every error of the API (problem+json) is a NetworkApiError with its status and code. */
import type { Problem } from './types.js';

export class NetworkApiError extends Error {
  override readonly name: string = 'NetworkApiError';
  constructor(
    /** The HTTP status (400, 401, 404, 413, 429, 503, ...). */
    readonly status: number,
    /** The problem's stable snake_case code (`invalid_language`, `rate_limited`, ...), or `http_<status>` without a problem body. */
    readonly code: string,
    message: string,
    readonly problem: Problem | null = null,
    /** Seconds from the Retry-After header (429 and 503), when there was one. */
    readonly retryAfterSeconds: number | null = null,
    /** How many requests were made before giving up (the ad request retries 429 and 503). */
    readonly attempts = 1,
  ) {
    super(message);
  }
}

/** 401: key missing, invalid or revoked, or the publisher is not approved (any more). Do not retry: fix the key. */
export class UnauthorizedError extends NetworkApiError {
  override readonly name = 'UnauthorizedError';
}

/** 429 on the ad request, after the bounded retries were used up (or Retry-After was beyond the wait budget). */
export class RateLimitedError extends NetworkApiError {
  override readonly name = 'RateLimitedError';
}

/** 503, or the entry point's 502 and 504: the service could not complete; retry later with bounded backoff. */
export class ServiceUnavailableError extends NetworkApiError {
  override readonly name = 'ServiceUnavailableError';
}

/** The answer was not what the API describes (wrong content type, a body that is not the schema's). */
export class UnexpectedResponseError extends Error {
  override readonly name = 'UnexpectedResponseError';
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

/** The request did not get an answer (connection refused or reset, DNS, timeout). */
export class TransportError extends Error {
  override readonly name: string = 'TransportError';
  constructor(
    message: string,
    override readonly cause: unknown,
    readonly timedOut: boolean,
    /** True when no connection was made (refused, unknown host): the request never left, nothing was recorded. */
    readonly notSent = false,
  ) {
    super(message);
  }
}

/**
 * A delivery confirmation got no answer (timeout or broken connection): it may or may not have been
 * recorded. The client never sends it again on its own. Confirmations are idempotent, so sending the same
 * token again later is safe if you decide to; the message itself must never be sent again because of this.
 */
export class DeliveryOutcomeUnknownError extends TransportError {
  override readonly name = 'DeliveryOutcomeUnknownError';
  constructor(readonly token: string, cause: unknown, timedOut: boolean) {
    super(`the delivery confirmation got no answer (${timedOut ? 'timeout' : 'connection failed'}); it may or may not be recorded`, cause, timedOut);
  }
}
