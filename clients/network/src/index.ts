export { NetworkClient, type AdRequestOptions, type AdResult, type CallOptions, type NetworkClientOptions, type NoFillReason, type RetryEvent } from './client.js';
export {
  DeliveryOutcomeUnknownError,
  NetworkApiError,
  RateLimitedError,
  ServiceUnavailableError,
  TransportError,
  UnauthorizedError,
  UnexpectedResponseError,
} from './errors.js';
export { DEFAULT_RETRY, nextDelayMs, parseRetryAfter, type RetryPolicy } from './retry.js';
export { AD_FIELDS, type Ad, type AdQuery, type DeliveryConfirmation, type DeliveryConfirmed, type DeliveryTestAnswer, type Problem, type TestAnswer } from './types.js';
export {
  AD_CHARACTER_LIMITS,
  adProblem,
  checkAd,
  checkDeliveryConfirmed,
  checkProblem,
  isAd,
  isDeliveryConfirmed,
  isProblem,
  type Checked,
} from './validation.js';
export { CLIENT_VERSION } from './version.js';
export type { components, operations, paths } from './generated/openapi.js';
