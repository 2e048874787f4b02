/** The OpenTelemetry SDK and its instrumentations (see index.ts), kept apart so they load only when tracing is on. */
import type { ClientRequest, IncomingMessage } from 'node:http';
import type { Attributes, Span } from '@opentelemetry/api';
import { redactUrl } from '../logging';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { AmqplibInstrumentation } from '@opentelemetry/instrumentation-amqplib';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { MongoDBInstrumentation } from '@opentelemetry/instrumentation-mongodb';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { NodeSDK } from '@opentelemetry/sdk-node';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { ErrorsKept, headSampler, LocalRootsRecorded } from './sampling';

/** A running tracer: shutdown flushes what is still batched. */
export interface Tracing {
  shutdown(): Promise<void>;
}

/** Probes and scrapes are not traced: they would be most of the spans and say nothing. */
const UNTRACED_PATHS = new Set(['/livez', '/readyz', '/metrics']);

/** Click tokens ride in paths: a span names the path without them, as the logs do. */
function redactedPathAttributes(path: string | undefined, origin = ''): Attributes {
  if (!path) return {};
  const redacted = redactUrl(path);
  if (redacted === path) return {};
  const full = origin ? { 'url.full': `${origin}${redacted}`, 'http.url': `${origin}${redacted}` } : {};
  return { 'url.path': redacted.split('?')[0], 'http.target': redacted, ...full };
}

/**
 * Names a recorded server span by the Express route that answered (`GET /api/workspace/campaigns/:id`), with
 * `http.route`. Express is not instrumented itself: wrapping every layer of every request cost more than
 * the rest of tracing together, sampled or not; the route is read once, when a kept span ends.
 */
function namedByRoute(span: Span, request: ClientRequest | IncomingMessage): void {
  if (!span.isRecording()) return;
  const { route, baseUrl, method } = request as IncomingMessage & { route?: { path?: unknown }; baseUrl?: string };
  if (typeof route?.path !== 'string') return;
  const path = `${baseUrl ?? ''}${route.path}`;
  span.setAttribute('http.route', path);
  span.updateName(`${method ?? 'GET'} ${path}`);
}

/**
 * Starts the SDK with the instrumentations; only loaded (required) when tracing is on. The sampler and the
 * processor keep a share of the traces and every error (sampling.ts).
 */
export function startSdk(service: string, env: NodeJS.ProcessEnv, options: { spanProcessor?: SpanProcessor }): Tracing {
  const sdk = new NodeSDK({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: env.OTEL_SERVICE_NAME ?? service }),
    sampler: new LocalRootsRecorded(headSampler(env)),
    spanProcessors: [new ErrorsKept(options.spanProcessor ?? new BatchSpanProcessor(new OTLPTraceExporter()))],
    // Traces only: the services' metrics are Prometheus's (/metrics). Left to the SDK's defaults, an OTLP
    // metrics exporter would make the instrumentations record a duration histogram of every request and
    // call, and a logs provider would start beside it.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (req) => UNTRACED_PATHS.has((req.url ?? '').split('?')[0] ?? ''),
        startIncomingSpanHook: (req) => redactedPathAttributes(req.url),
        applyCustomAttributesOnSpan: namedByRoute,
        startOutgoingSpanHook: (options) =>
          redactedPathAttributes(options.path ?? undefined, `${options.protocol ?? 'http:'}//${options.hostname ?? options.host ?? 'localhost'}${options.port ? `:${options.port}` : ''}`),
      }),
      new AmqplibInstrumentation(),
      new IORedisInstrumentation(),
      new MongoDBInstrumentation(),
    ],
  });
  sdk.start();
  // Spans still in the batch are sent when the process ends normally (runService exits after SIGTERM).
  process.once('beforeExit', () => void sdk.shutdown());
  return { shutdown: () => sdk.shutdown() };
}
