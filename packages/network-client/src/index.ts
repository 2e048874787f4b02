export { NetworkClient, type CallOptions, type NetworkClientOptions, type RetryEvent } from './client';
export {
  DeliveryOutcomeUnknownError,
  NetworkApiError,
  RateLimitedError,
  ServiceUnavailableError,
  TransportError,
  UnauthorizedError,
  UnexpectedResponseError,
} from './errors';
export { DEFAULT_RETRY, nextDelayMs, parseRetryAfter, type RetryPolicy } from './retry';
export { AD_FIELDS, adProblem, isAd, isDeliveryConfirmed, isProblem, type Ad, type AdQuery, type DeliveryConfirmation, type DeliveryConfirmed, type Problem } from './types';
export type { components, operations, paths } from './generated/openapi';
