/**
 * The publisher's server-side client of the network API (SPEC.md, API.md):
 *   requestAd()        GET  /api/network/ad       -> Ad, or null on 204; 429/503 retried within bounds
 *   confirmDelivery()  POST /api/network/delivery -> DeliveryConfirmed; never retried by the client
 * It uses Node's built-in fetch (undici), whose global dispatcher keeps connections alive between calls;
 * every response body is read to the end so its connection goes back to the pool.
 */
import {
  DeliveryOutcomeUnknownError,
  NetworkApiError,
  RateLimitedError,
  ServiceUnavailableError,
  TransportError,
  UnauthorizedError,
  UnexpectedResponseError,
} from './errors.js';
import { DEFAULT_RETRY, nextDelayMs, parseRetryAfter, sleep, type RetryPolicy } from './retry.js';
import type { Ad, DeliveryConfirmed, Problem, TestAnswer } from './types.js';
import { checkAd, checkDeliveryConfirmed, checkProblem } from './validation.js';
import { CLIENT_VERSION } from './version.js';

export interface RetryEvent {
  attempt: number;
  status: number;
  retryAfterSeconds: number | null;
  delayMs: number;
}

export interface NetworkClientOptions {
  /** The service origin (PUBLIC_BASE_URL), e.g. https://pilot.example. */
  baseUrl: string;
  /** The publisher API key. Keep it on the server: never in browser code, URLs or logs. */
  apiKey: string;
  /** Bounded backoff of the ad request on 429 and 503 (see RetryPolicy for the defaults). */
  retry?: Partial<RetryPolicy>;
  /** Deadline of one ad request attempt (ms). Default 5 000. */
  timeoutMs?: number;
  /** Deadline of a delivery confirmation (ms). Default 10 000. On expiry: DeliveryOutcomeUnknownError, no retry. */
  deliveryTimeoutMs?: number;
  /** Called before each wait between ad request attempts. */
  onRetry?: (event: RetryEvent) => void;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Defaults to a timer; tests may pass a fake. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  userAgent?: string;
}

export interface CallOptions {
  signal?: AbortSignal;
}

export class NetworkClient {
  readonly retry: RetryPolicy;
  private readonly baseUrl: string;
  private readonly apiKey: string;
  private readonly timeoutMs: number;
  private readonly deliveryTimeoutMs: number;
  private readonly fetchImpl: typeof fetch;
  private readonly sleepImpl: (ms: number, signal?: AbortSignal) => Promise<void>;
  private readonly onRetry: ((event: RetryEvent) => void) | undefined;
  private readonly userAgent: string;

  constructor(options: NetworkClientOptions) {
    if (!options.apiKey) throw new TypeError('apiKey is required');
    this.baseUrl = new URL(options.baseUrl).origin;
    this.apiKey = options.apiKey;
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    if (!Number.isInteger(this.retry.maxAttempts) || this.retry.maxAttempts < 1) throw new RangeError('retry.maxAttempts must be an integer >= 1');
    if (this.retry.maxTotalWaitMs < 0) throw new RangeError('retry.maxTotalWaitMs must be >= 0');
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.deliveryTimeoutMs = options.deliveryTimeoutMs ?? 10_000;
    this.fetchImpl = options.fetch ?? fetch;
    this.sleepImpl = options.sleep ?? sleep;
    this.onRetry = options.onRetry;
    this.userAgent = options.userAgent ?? `@pilot/network-client/${CLIENT_VERSION}`;
  }

  /**
   * One creative for an immediate placement, or null when none matches (204: send nothing, carry on).
   * 429 and 503 are retried after Retry-After (or a jittered backoff without it) while the attempts and
   * the total wait allow; then the RateLimitedError or ServiceUnavailableError is thrown. Every other
   * error is thrown at once.
   * With a test key (the sandbox), `testAnswer` sends `X-Pilot-Test-Answer` to force a 204, 429 or 503
   * and so test the caller's handling of null and of the errors; every attempt is forced alike.
   */
  async requestAd(options: CallOptions & { language?: string; testAnswer?: TestAnswer } = {}): Promise<Ad | null> {
    const url = new URL('/api/network/ad', this.baseUrl);
    if (options.language !== undefined) url.searchParams.set('language', options.language);
    const init: RequestInit = { method: 'GET', ...(options.testAnswer ? { headers: { 'x-pilot-test-answer': options.testAnswer } } : {}) };
    let waitedMs = 0;
    for (let attempt = 1; ; attempt += 1) {
      const response = await this.send(url, init, this.timeoutMs, options.signal).catch((error: unknown) => {
        throw transportError(error, options.signal);
      });
      if (response.status === 200) {
        const checked = checkAd(await readJson(response));
        if (!checked.ok) throw new UnexpectedResponseError(200, `the ad response is not an Ad: ${checked.problem}`);
        return checked.value;
      }
      if (response.status === 204) {
        await response.arrayBuffer();
        return null;
      }
      const error = await apiError(response, attempt);
      if (!(error instanceof RateLimitedError || error instanceof ServiceUnavailableError)) throw error;
      const delayMs = nextDelayMs(this.retry, attempt, waitedMs, error.retryAfterSeconds);
      if (delayMs === null) throw error;
      this.onRetry?.({ attempt, status: error.status, retryAfterSeconds: error.retryAfterSeconds, delayMs });
      await this.sleepImpl(delayMs, options.signal);
      waitedMs += delayMs;
    }
  }

  /**
   * Confirms the delivery of an ad: call it only after the messaging platform reported a successful send.
   * Sent once. Without an answer (timeout, broken connection) it throws DeliveryOutcomeUnknownError and
   * does not try again; an answer of 503 is thrown as ServiceUnavailableError for the caller to decide.
   */
  async confirmDelivery(token: string, options: CallOptions = {}): Promise<DeliveryConfirmed> {
    const url = new URL('/api/network/delivery', this.baseUrl);
    const init: RequestInit = {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    };
    let response: Response;
    try {
      response = await this.send(url, init, this.deliveryTimeoutMs, options.signal);
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      throw new DeliveryOutcomeUnknownError(token, error, isTimeout(error));
    }
    if (response.status !== 200) throw await apiError(response, 1);
    const checked = checkDeliveryConfirmed(await readJson(response));
    if (!checked.ok) throw new UnexpectedResponseError(200, `the delivery answer is not a DeliveryConfirmed object: ${checked.problem}`);
    return checked.value;
  }

  private send(url: URL, init: RequestInit, timeoutMs: number, signal: AbortSignal | undefined): Promise<Response> {
    const deadline = AbortSignal.timeout(timeoutMs);
    return this.fetchImpl(url, {
      ...init,
      redirect: 'manual',
      headers: {
        accept: 'application/json, application/problem+json',
        authorization: `Bearer ${this.apiKey}`,
        'user-agent': this.userAgent,
        ...(init.headers as Record<string, string> | undefined),
      },
      signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
    });
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || (error.cause instanceof Error && error.cause.name === 'TimeoutError'));
}

function transportError(error: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) return signal.reason;
  const timedOut = isTimeout(error);
  return new TransportError(timedOut ? 'the ad request timed out' : 'the ad request got no answer', error, timedOut);
}

async function readJson(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!/json/.test(response.headers.get('content-type') ?? '')) {
    throw new UnexpectedResponseError(response.status, `expected JSON, got ${response.headers.get('content-type') ?? 'no content type'}`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UnexpectedResponseError(response.status, 'the body is not valid JSON');
  }
}

async function apiError(response: Response, attempts: number): Promise<NetworkApiError> {
  const text = await response.text();
  let problem: Problem | null = null;
  try {
    const checked = checkProblem(JSON.parse(text));
    if (checked.ok) problem = checked.value;
  } catch {
    // not a problem body (e.g. a proxy's page): the status alone says what happened
  }
  const status = response.status;
  const code = problem?.code ?? `http_${status}`;
  const message = `HTTP ${status} ${code}${problem?.detail ? `: ${problem.detail}` : ''}`;
  const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
  if (status === 401) return new UnauthorizedError(status, code, message, problem, retryAfter, attempts);
  if (status === 429) return new RateLimitedError(status, code, message, problem, retryAfter, attempts);
  if (status === 503) return new ServiceUnavailableError(status, code, message, problem, retryAfter, attempts);
  return new NetworkApiError(status, code, message, problem, retryAfter, attempts);
}
