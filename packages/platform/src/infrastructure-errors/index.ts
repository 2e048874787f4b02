/**
 * Faults of infrastructure (database, broker, cache unreachable or too slow) are not bugs: callers answer
 * 503 with Retry-After and consumers retry without giving up. This is the one place that tells them apart.
 */
export class ServiceUnavailableError extends Error {
  constructor(
    readonly dependency: string,
    message = `${dependency} is unavailable`,
  ) {
    super(message);
    this.name = 'ServiceUnavailableError';
  }
}

const INFRASTRUCTURE_ERROR_NAMES = new Set([
  'ServiceUnavailableError',
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoNotConnectedError',
  'MongoPoolClearedError',
  'MongoTopologyClosedError',
  'MongoExpiredSessionError',
  // The driver's operation deadline (connectMongo's operationTimeoutMS): the server was told to stop too.
  'MongoOperationTimeoutError',
  'MaxRetriesPerRequestError',
  'ClusterAllFailedError',
]);

const INFRASTRUCTURE_MESSAGES = [
  /buffering timed out/i,
  /Connection is closed/i,
  /Stream isn't writeable/i,
  /^Command timed out$/, // ioredis commandTimeout: Redis accepted the connection but did not answer
  /enableOfflineQueue options is false/i,
  /ECONNREFUSED/,
  /ECONNRESET/,
  /EPIPE/,
  /ETIMEDOUT/,
  /Client must be connected/i,
  /connection .* closed/i,
  /Channel closed/i,
];

/** MongoDB's answer to an operation that ran past its maxTimeMS (the server stopped it). */
const MAX_TIME_MS_EXPIRED = 50;

export function isInfrastructureError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if ((error as { code?: unknown }).code === MAX_TIME_MS_EXPIRED) return true;
  if (INFRASTRUCTURE_ERROR_NAMES.has(error.name)) return true;
  if (error.constructor && INFRASTRUCTURE_ERROR_NAMES.has(error.constructor.name)) return true;
  if (INFRASTRUCTURE_MESSAGES.some((pattern) => pattern.test(error.message))) return true;
  const cause = (error as { cause?: unknown }).cause;
  return cause !== undefined && cause !== error && isInfrastructureError(cause);
}

/**
 * Rejects with ServiceUnavailableError when `work` does not settle within `ms`. Given as a function, `work`
 * receives a signal aborted at the deadline: pass it on (fetch, the driver's `signal`) so the work the
 * caller stopped waiting for stops too, instead of running on and slowing everyone who shares the dependency.
 */
export async function withDeadline<T>(work: Promise<T> | ((signal: AbortSignal) => Promise<T>), ms: number, dependency: string): Promise<T> {
  // A function that declares no parameter takes no signal (a Redis command, which cannot be called back):
  // no controller is made for it. The ad path's two Redis calls are such.
  const controller = typeof work === 'function' && work.length > 0 ? new AbortController() : null;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new ServiceUnavailableError(dependency, `${dependency} did not answer within ${ms} ms`);
      controller?.abort(error);
      reject(error);
    }, ms);
  });
  try {
    const running = typeof work !== 'function' ? work : controller ? work(controller.signal) : (work as () => Promise<T>)();
    return await Promise.race([running, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Runs a call to a dependency with a deadline; any failure of it is a fault of infrastructure (503), never
 * a 500. For calls whose every error is the dependency's (a Redis read, say), not bad input.
 */
export async function asInfrastructureFault<T>(work: (signal: AbortSignal) => Promise<T>, ms: number, dependency: string, what: string): Promise<T> {
  try {
    return await withDeadline(work, ms, dependency);
  } catch (error) {
    if (error instanceof ServiceUnavailableError) throw error;
    throw new ServiceUnavailableError(dependency, `${what}: ${(error as Error).message}`);
  }
}
