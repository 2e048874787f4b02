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

export function httpLogger(logger: Logger): HttpLogger {
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
    autoLogging: { ignore: (req) => req.url === '/livez' || req.url === '/readyz' || req.url === '/metrics' },
  });
}
