/**
 * OpenTelemetry for a service process: W3C trace context in and out of HTTP (gateway to services),
 * RabbitMQ (the bus of packages/messaging carries it in message headers), Redis and MongoDB spans,
 * exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set. Without it nothing is started: the API calls elsewhere in the
 * code (bus, logging) are then no-ops and cost a function call.
 *
 * Call it before anything else is loaded (each service's `src/tracing.ts`, imported first by main.ts):
 * the instrumentations patch modules as they are required. Hence its own entry, `@pilot/platform/tracing`:
 * the package's main entry loads express, http and the rest of the platform.
 */
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type * as Sdk from './sdk';
import type { Tracing } from './sdk';

export type { Tracing } from './sdk';
export { serverSpans } from './server-spans';

let started = false;

/** True once startTracing started the SDK in this process: the service's app then starts a span per request. */
export function tracingStarted(): boolean {
  return started;
}

/**
 * Starts tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set (or a span processor is given: tests); null
 * otherwise. OTEL_SERVICE_NAME overrides `service`. The SDK and the instrumentations are required only
 * then: loading them costs a process some 40 MB and start-up time even when nothing is traced.
 */
export function startTracing(service: string, env: NodeJS.ProcessEnv = process.env, options: { spanProcessor?: SpanProcessor } = {}): Tracing | null {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !options.spanProcessor) return null;
  started = true;
  // A synchronous require on purpose: the instrumentations must patch modules before they are loaded.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startSdk } = require('./sdk') as typeof Sdk;
  return startSdk(service, env, options);
}
