/**
 * W3C trace context across RabbitMQ: a producer span per publish whose context travels in the message
 * headers (`traceparent`, `tracestate`), and a consumer span per handled message, child of the context
 * found in its headers, active while the handler runs (so its Redis or MongoDB calls and its logs belong to
 * the same trace). Without a registered SDK (tracing off) these are no-ops.
 */
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';

const tracer = trace.getTracer('@pilot/messaging');

/** Runs `send` inside a producer span; it gets the headers that carry that span's context. */
export async function tracedPublish<T>(eventType: string, exchange: string, send: (headers: Record<string, string>) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(
    `${eventType} publish`,
    { kind: SpanKind.PRODUCER, attributes: { 'messaging.system': 'rabbitmq', 'messaging.destination.name': exchange, 'messaging.rabbitmq.destination.routing_key': eventType } },
    async (span) => {
      const headers: Record<string, string> = {};
      propagation.inject(context.active(), headers);
      return settle(span, () => send(headers));
    },
  );
}

/** Runs `handle` inside a consumer span continuing the trace of the message's headers. */
export function tracedConsume<T>(eventType: string, queue: string, headers: Record<string, unknown> | undefined, handle: () => Promise<T>): Promise<T> {
  const parent = propagation.extract(ROOT_CONTEXT, headers ?? {});
  return tracer.startActiveSpan(
    `${eventType} process`,
    { kind: SpanKind.CONSUMER, attributes: { 'messaging.system': 'rabbitmq', 'messaging.destination.name': queue, 'messaging.operation.type': 'process' } },
    parent,
    (span) => settle(span, handle),
  );
}

async function settle<T>(span: Span, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
    throw error;
  } finally {
    span.end();
  }
}
