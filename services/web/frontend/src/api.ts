/**
 * The one way the browser talks to the service: same-origin /api/... through the gateway, cookies sent
 * (credentials 'same-origin'); the browser adds the Origin header to writes by itself. Every answer that is
 * not 2xx becomes an ApiError carrying the problem+json fields, so screens can show `detail` and field errors.
 */
export interface FieldError {
  field: string;
  code: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly errors: FieldError[] = [],
    readonly retryAfter: number | null = null,
  ) {
    super(detail);
    this.name = 'ApiError';
  }
}

/** The fetch itself failed: offline, the gateway down, a connection reset. */
export class NetworkError extends Error {
  constructor() {
    super('The service could not be reached. Check your connection and try again.');
    this.name = 'NetworkError';
  }
}

interface ProblemBody {
  title?: unknown;
  detail?: unknown;
  code?: unknown;
  errors?: unknown;
}

function fieldErrorsOf(value: unknown): FieldError[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter((item): item is Record<string, unknown> => typeof item === 'object' && item !== null)
    .map((item) => ({
      field: typeof item.field === 'string' ? item.field : '(body)',
      code: typeof item.code === 'string' ? item.code : 'invalid',
      message: typeof item.message === 'string' ? item.message : 'is invalid',
    }));
}

async function problemOf(response: Response): Promise<ApiError> {
  let body: ProblemBody = {};
  try {
    const parsed: unknown = await response.json();
    if (typeof parsed === 'object' && parsed !== null) body = parsed as ProblemBody;
  } catch {
    // not JSON: keep the status alone
  }
  const retry = Number(response.headers.get('retry-after'));
  const detail = typeof body.detail === 'string' && body.detail ? body.detail : typeof body.title === 'string' ? body.title : response.statusText;
  return new ApiError(
    response.status,
    typeof body.code === 'string' ? body.code : `http_${response.status}`,
    detail,
    fieldErrorsOf(body.errors),
    Number.isFinite(retry) && retry > 0 ? retry : null,
  );
}

export interface ApiOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE';
  body?: unknown;
  signal?: AbortSignal;
}

/** Calls the API; 204 answers null. */
export async function api<T>(path: string, options: ApiOptions = {}): Promise<T | null> {
  const init: RequestInit = {
    method: options.method ?? 'GET',
    credentials: 'same-origin',
    headers: { accept: 'application/json, application/problem+json' },
    signal: options.signal,
  };
  if (options.body !== undefined) {
    init.body = JSON.stringify(options.body);
    init.headers = { ...init.headers, 'content-type': 'application/json' };
  }
  let response: Response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new NetworkError();
  }
  if (response.status === 204) return null;
  if (!response.ok) throw await problemOf(response);
  return (await response.json()) as T;
}

/** Like api() for calls that always answer a body. */
export async function apiBody<T>(path: string, options: ApiOptions = {}): Promise<T> {
  const result = await api<T>(path, options);
  if (result === null) throw new ApiError(502, 'empty_answer', 'The service answered without content.');
  return result;
}

export function query(params: Record<string, string | undefined>): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value) search.set(key, value);
  const text = search.toString();
  return text ? `?${text}` : '';
}

/** One page of a paged list (API.md): its items, and the cursor of the next page (null on the last). */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** The items of a paged list, 100 a page, page after page until the last or `maxPages`. */
export async function apiPages<T>(path: string, params: Record<string, string | undefined>, options: { signal?: AbortSignal; maxPages?: number } = {}): Promise<{ items: T[] }> {
  const items: T[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < (options.maxPages ?? Infinity); pages += 1) {
    const page = await apiBody<Page<T>>(`${path}${query({ ...params, limit: '100', cursor })}`, { signal: options.signal });
    items.push(...page.items);
    if (!page.nextCursor) break;
    cursor = page.nextCursor;
  }
  return { items };
}

/** Words a person understands for any failure. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) {
    if (error.status === 401) return 'Your session has ended. Please sign in again.';
    if (error.status === 403) return `You are not allowed to do this. ${error.code === 'origin_refused' ? 'The request did not come from this site; reload the page and try again.' : error.detail}`;
    if (error.status === 404) return `Not found. ${error.detail}`;
    if (error.status === 429) return `Too many requests. Try again${error.retryAfter ? ` in ${error.retryAfter} seconds` : ' shortly'}.`;
    if (error.status >= 500) return `The service is having trouble right now${error.retryAfter ? `; try again in ${error.retryAfter} seconds` : '; try again shortly'}.`;
    return error.detail || 'The request was refused.';
  }
  if (error instanceof NetworkError) return error.message;
  return 'Something went wrong. Please try again.';
}
