/**
 * The publisher's server-side client of the network API (the publishers guide, {base_url}/guide):
 *   requestAd()        GET  /api/network/ad       -> Ad, or null on 204; 429, 502, 503 and 504 retried within bounds
 *   requestAdResult()  the same, with the 204's Pilot-No-Fill-Reason
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
import type { Ad, DeliveryConfirmed, DeliveryTestAnswer, Problem, TestAnswer } from './types.js';
import { checkAd, checkDeliveryConfirmed, checkProblem } from './validation.js';
import { CLIENT_VERSION } from './version.js';

export interface RetryEvent {
  attempt: number;
  status: number;
  retryAfterSeconds: number | null;
  delayMs: number;
}

/** Why a 204 had no ad (Pilot-No-Fill-Reason); the network may add reasons, so any other string may come. */
export type NoFillReason = 'no_active_campaign' | 'no_campaign_for_format' | 'no_campaign_for_language' | 'own_campaigns_only';

/** An ad request's outcome: the Ad, or none with the reason the network gave (null when it gave none). */
export type AdResult = { ad: Ad; noFillReason: null } | { ad: null; noFillReason: NoFillReason | (string & {}) | null };

export interface NetworkClientOptions {
  /** The service origin (PUBLIC_BASE_URL), e.g. https://pilot.example; a path prefix (https://example.org/pilot) is kept. */
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

export interface AdRequestOptions extends CallOptions {
  /** An ISO 639-1 code or a tag of one, as the platform gives it; undefined or '' leaves it out (the network's default, en). */
  language?: string;
  /** Sandbox only: the answer a test key forces (X-Pilot-Test-Answer); every attempt is forced alike. */
  testAnswer?: TestAnswer;
  /** This call's retry policy over the client's, e.g. { maxAttempts: 1 } to get a 429 or 503 at once. */
  retry?: Partial<RetryPolicy>;
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
    this.baseUrl = baseUrlOf(options.baseUrl);
    this.apiKey = options.apiKey;
    this.retry = checkedPolicy({ ...DEFAULT_RETRY, ...options.retry });
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.deliveryTimeoutMs = options.deliveryTimeoutMs ?? 10_000;
    this.fetchImpl = options.fetch ?? fetch;
    this.sleepImpl = options.sleep ?? sleep;
    this.onRetry = options.onRetry;
    this.userAgent = options.userAgent ?? `@pilot/network-client/${CLIENT_VERSION}`;
  }

  /**
   * One creative for an immediate placement, or null when none matches (204: send nothing, carry on).
   * 429, 503 and the entry point's 502 and 504 are retried after Retry-After (or a jittered backoff without
   * it) while the attempts and the total wait allow; then the RateLimitedError or ServiceUnavailableError
   * is thrown (its `status` says which). Every other error is thrown at once.
   * With a test key (the sandbox), `testAnswer` sends `X-Pilot-Test-Answer` to force a 204, 429 or 503
   * and so test the caller's handling of null and of the errors; every attempt is forced alike, and
   * `retry: { maxAttempts: 1 }` surfaces a forced error at once instead of after the policy's waits.
   */
  async requestAd(options: AdRequestOptions = {}): Promise<Ad | null> {
    return (await this.requestAdResult(options)).ad;
  }

  /** As requestAd, with why a 204 had no ad: its Pilot-No-Fill-Reason (null when the answer had none). */
  async requestAdResult(options: AdRequestOptions = {}): Promise<AdResult> {
    const url = this.urlOf('/api/network/ad');
    if (options.language !== undefined && options.language !== '') url.searchParams.set('language', options.language);
    const init: RequestInit = { method: 'GET', ...(options.testAnswer ? { headers: { 'x-pilot-test-answer': options.testAnswer } } : {}) };
    const policy = options.retry ? checkedPolicy({ ...this.retry, ...options.retry }) : this.retry;
    let waitedMs = 0;
    for (let attempt = 1; ; attempt += 1) {
      const response = await this.send(url, init, this.timeoutMs, options.signal).catch((error: unknown) => {
        throw transportError(error, options.signal);
      });
      if (response.status === 200) {
        const checked = checkAd(await readJson(response));
        if (!checked.ok) throw new UnexpectedResponseError(200, `the ad response is not an Ad: ${checked.problem}`);
        return { ad: checked.value, noFillReason: null };
      }
      if (response.status === 204) {
        await response.arrayBuffer();
        return { ad: null, noFillReason: response.headers.get('pilot-no-fill-reason') };
      }
      const error = await apiError(response, attempt);
      if (!(error instanceof RateLimitedError || error instanceof ServiceUnavailableError)) throw error;
      const delayMs = nextDelayMs(policy, attempt, waitedMs, error.retryAfterSeconds);
      if (delayMs === null) throw error;
      this.onRetry?.({ attempt, status: error.status, retryAfterSeconds: error.retryAfterSeconds, delayMs });
      await this.sleepImpl(delayMs, options.signal);
      waitedMs += delayMs;
    }
  }

  /**
   * Confirms the delivery of an ad: call it only after the messaging platform reported a successful send.
   * Sent once. Without an answer once it may have reached the network (timeout, broken connection, the
   * entry point's 504) it throws DeliveryOutcomeUnknownError and does not try again. A connection that was
   * never made (refused, unknown host) sent nothing: TransportError with `notSent`. An answer of 502 or 503
   * is thrown as ServiceUnavailableError for the caller to decide (confirming again is safe).
   * With a test key, `testAnswer` forces a 404 token_expired or a 503 (the sandbox); nothing is recorded.
   */
  async confirmDelivery(token: string, options: CallOptions & { testAnswer?: DeliveryTestAnswer } = {}): Promise<DeliveryConfirmed> {
    const url = this.urlOf('/api/network/delivery');
    const init: RequestInit = {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(options.testAnswer ? { 'x-pilot-test-answer': options.testAnswer } : {}) },
      body: JSON.stringify({ token }),
    };
    let response: Response;
    try {
      response = await this.send(url, init, this.deliveryTimeoutMs, options.signal);
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason;
      if (neverConnected(error)) throw new TransportError('the delivery confirmation was not sent: no connection to the network', error, false, true);
      throw new DeliveryOutcomeUnknownError(token, error, isTimeout(error));
    }
    if (response.status === 504) {
      await response.arrayBuffer();
      throw new DeliveryOutcomeUnknownError(token, new Error('HTTP 504 gateway_timeout'), true);
    }
    if (response.status !== 200) throw await apiError(response, 1);
    const checked = checkDeliveryConfirmed(await readJson(response));
    if (!checked.ok) throw new UnexpectedResponseError(200, `the delivery answer is not a DeliveryConfirmed object: ${checked.problem}`);
    return checked.value;
  }

  private urlOf(path: string): URL {
    return new URL(`${this.baseUrl}${path}`);
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

/** The base URL without its trailing slashes; its path (a prefix the network is served under) is kept. */
function baseUrlOf(raw: string): string {
  const url = new URL(raw);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError('baseUrl must be an http or https URL');
  if (url.search || url.hash) throw new TypeError('baseUrl must not have a query or a fragment');
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function checkedPolicy(policy: RetryPolicy): RetryPolicy {
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) throw new RangeError('retry.maxAttempts must be an integer >= 1');
  if (policy.maxTotalWaitMs < 0) throw new RangeError('retry.maxTotalWaitMs must be >= 0');
  return policy;
}

/** Connection errors that happen before a request can be sent: nothing reached the network. */
const NOT_CONNECTED = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function neverConnected(error: unknown): boolean {
  for (let at: unknown = error, depth = 0; at instanceof Object && depth < 5; at = (at as { cause?: unknown }).cause, depth += 1) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === 'string' && NOT_CONNECTED.has(code)) return true;
    const errors = (at as { errors?: unknown }).errors; // an AggregateError of every address tried
    if (Array.isArray(errors) && errors.length > 0 && errors.every((inner) => neverConnected(inner))) return true;
  }
  return false;
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || (error.cause instanceof Error && error.cause.name === 'TimeoutError'));
}

function transportError(error: unknown, signal: AbortSignal | undefined): unknown {
  if (signal?.aborted) return signal.reason;
  const timedOut = isTimeout(error);
  return new TransportError(timedOut ? 'the ad request timed out' : 'the ad request got no answer', error, timedOut, neverConnected(error));
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
  if (status === 502 || status === 503 || status === 504) return new ServiceUnavailableError(status, code, message, problem, retryAfter, attempts);
  return new NetworkApiError(status, code, message, problem, retryAfter, attempts);
}
