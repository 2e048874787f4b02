/**
 * JSON logs (pino). Secrets never reach a log: the Authorization header, cookies, Set-Cookie, API keys,
 * tokens and secrets are redacted wherever they appear in a logged object, and request URLs are logged
 * without their click/delivery tokens.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isSpanContextValid, trace } from '@opentelemetry/api';
import pino, { type DestinationStream, type Logger } from 'pino';
import { pinoHttp, type HttpLogger } from 'pino-http';

export type { Logger } from 'pino';
export { networkLogSampleRateOf } from './network-log-sample-rate';

export const REQUEST_ID_HEADER = 'x-request-id';

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-pilot-internal"]',
  'req.headers["x-telegram-bot-api-secret-token"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'headers["set-cookie"]',
  'headers["x-pilot-internal"]',
  'headers["x-telegram-bot-api-secret-token"]',
  'key',
  'token',
  'secret',
  'password',
  'sessionId',
  '*.key',
  '*.token',
  '*.secret',
  '*.password',
  '*.apiKey',
  '*.sessionId',
  '*.deliveryToken',
  '*.delivery_token',
  '*.click_url',
  '*.clickUrl',
];

export interface LoggerOptions {
  service: string;
  level?: string;
  destination?: DestinationStream;
}

export function createLogger({ service, level = 'info', destination }: LoggerOptions): Logger {
  return pino(
    {
      level,
      base: { service },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      timestamp: pino.stdTimeFunctions.isoTime,
      mixin: traceFields,
    },
    destination,
  );
}

/** The trace and span of the work a line is logged in (none when tracing is off or outside a span). */
export function traceFields(): { trace_id?: string; span_id?: string } {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return isSpanContextValid(span.spanContext()) ? { trace_id: traceId, span_id: spanId } : {};
}

/**
 * Standard output written asynchronously and in chunks: lines gather in a 4 KB buffer, written when it
 * fills and at least once a second, instead of one blocking write per line (a line per request was the
 * largest syscall cost of a busy service). pino flushes what is left when the process exits.
 */
export function asyncStdout(): DestinationStream {
  const destination = pino.destination({ dest: 1, sync: false, minLength: 4096 });
  const timer = setInterval(() => {
    try {
      destination.flush();
    } catch {
      clearInterval(timer); // the stream was closed: the process is ending
    }
  }, 1000);
  timer.unref();
  return destination;
}

/** Tokens ride in click paths; a logged URL keeps the path family and drops the token itself. */
export function redactUrl(url: string): string {
  return url
    .replace(/(\/api\/network\/click\/)[^/?#]+/, '$1[redacted]')
    .replace(/([?&](?:token|key|code)=)[^&#]*/gi, '$1[redacted]');
}

const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;

/** The request id that crosses the gateway: an incoming well-formed one is kept, anything else replaced. */
export function requestIdOf(req: IncomingMessage): string {
  const incoming = req.headers[REQUEST_ID_HEADER];
  if (typeof incoming === 'string' && SAFE_REQUEST_ID.test(incoming)) return incoming;
  return randomUUID();
}

export interface AccessLogOptions {
  /**
   * Path prefixes of the high-volume calls (the network API): their answers below 400 and their 429s are
   * logged for a sample only, since metrics already count every one and a line per call was a tenth of the
   * ad path's CPU. Every other answer of theirs (401, 404, 5xx ...), and any call slower than
   * SLOW_REQUEST_MS, is still logged.
   */
  sampledPaths?: string[];
  /** Share of those routine answers still logged, 0 to 1 (default 0.01). */
  sampleRate?: number;
}

export const SLOW_REQUEST_MS = 1000;

const isProbe = (url: string | undefined) => url === '/livez' || url === '/readyz' || url === '/metrics';

export function httpLogger(logger: Logger, options: AccessLogOptions = {}): HttpLogger {
  const full = fullAccessLog(logger);
  const sampledPaths = options.sampledPaths ?? [];
  const sampleRate = options.sampleRate ?? 0.01;
  if (sampledPaths.length === 0) return full;
  const sampled = (req: IncomingMessage, res: ServerResponse, next?: () => void): void => {
    const url = req.url ?? '';
    if (!sampledPaths.some((path) => url.startsWith(path)) || Math.random() < sampleRate) return full(req, res, next);
    const id = requestIdOf(req);
    res.setHeader(REQUEST_ID_HEADER, id);
    req.id = id;
    const started = Date.now();
    res.once('close', () => {
      const responseTime = Date.now() - started;
      const routine = res.writableFinished && responseTime < SLOW_REQUEST_MS && (res.statusCode < 400 || res.statusCode === 429);
      if (routine) return;
      const fields = { req: { id, method: req.method, url: redactUrl(url) }, res: { statusCode: res.statusCode }, responseTime };
      if (!res.writableFinished) logger.warn(fields, 'request aborted');
      else if (res.statusCode >= 500) logger.error(fields, 'request errored');
      else logger.info(fields, 'request completed');
    });
    next?.();
  };
  return Object.assign(sampled, { logger: full.logger });
}

function fullAccessLog(logger: Logger): HttpLogger {
  return pinoHttp({
    logger,
    genReqId: (req: IncomingMessage, res: ServerResponse) => {
      const id = requestIdOf(req);
      res.setHeader(REQUEST_ID_HEADER, id);
      return id;
    },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
    serializers: {
      req: (req: { id: unknown; method: string; url: string; remoteAddress?: string }) => ({
        id: req.id,
        method: req.method,
        url: redactUrl(req.url),
      }),
      res: (res: { statusCode: number }) => ({ statusCode: res.statusCode }),
    },
    autoLogging: { ignore: (req) => isProbe(req.url) },
  });
}
