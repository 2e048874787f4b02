/** The OpenTelemetry SDK and its instrumentations (see index.ts), kept apart so they load only when tracing is on. */
import type { RequestOptions } from 'node:http';
import { context, propagation, trace, TraceFlags, type Attributes } from '@opentelemetry/api';
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

/** Click tokens ride in paths: a client span names the path without them, as the logs do. */
function redactedPathAttributes(path: string | undefined, origin: string): Attributes {
  if (!path) return {};
  const redacted = redactUrl(path);
  if (redacted === path) return {};
  return { 'url.path': redacted.split('?')[0], 'http.target': redacted, 'url.full': `${origin}${redacted}`, 'http.url': `${origin}${redacted}` };
}

/** node:http takes a request's headers as an object or as a flat list of names and values. */
function isHeaderList(headers: RequestOptions['headers']): headers is readonly string[] {
  return Array.isArray(headers);
}

/**
 * A call made in a trace that is not sampled: its context is put in the headers here and the
 * instrumentation does nothing more. Its client span would record nothing (only a local root is recorded
 * in such a trace, sampling.ts), and starting it (a score of attributes, the request's and the answer's
 * listeners bound) was most of what tracing cost the gateway's forward of an unsampled ad request. Sampled
 * calls, and calls outside any trace (a new root), get their client span.
 */
function propagatedOnly(options: RequestOptions): boolean {
  const current = context.active();
  const active = trace.getSpanContext(current);
  if (!active || (active.traceFlags & TraceFlags.SAMPLED) !== 0) return false;
  const carried: Record<string, string> = {};
  propagation.inject(current, carried);
  const { headers } = options;
  options.headers = isHeaderList(headers) ? [...headers, ...Object.entries(carried).flat()] : { ...headers, ...carried };
  return true;
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
      // Outgoing calls only: a request's server span is the service app's (server-spans.ts).
      new HttpInstrumentation({
        disableIncomingRequestInstrumentation: true,
        ignoreOutgoingRequestHook: propagatedOnly,
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
