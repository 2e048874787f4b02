/**
 * Which traces are kept (docs/operations.md, Traces; decision 0054). A share of the traces is sampled at their head
 * (by default 10 %, parent-based: a process follows the decision it receives in `traceparent`), and every
 * error is exported even when its trace is not sampled: in an unsampled trace each process records its
 * local root span only (the server span of a request, the consumer span of a message), and exports it when
 * it ends in error (a request answered with 5xx, or one that threw). The spans below an unsampled local root
 * are not recorded: no attributes, no events, no export.
 *
 * The standard settings choose the head decision: OTEL_TRACES_SAMPLER (always_on, always_off, traceidratio,
 * parentbased_always_on, parentbased_always_off, parentbased_traceidratio) and OTEL_TRACES_SAMPLER_ARG (the
 * ratio). `OTEL_TRACES_SAMPLER=parentbased_always_on` traces everything.
 */
import { SpanStatusCode, trace, TraceFlags, type Attributes, type Context, type Link, type SpanKind } from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  SamplingDecision,
  TraceIdRatioBasedSampler,
  type ReadableSpan,
  type Sampler,
  type SamplingResult,
  type Span,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace-base';

/** The share of traces sampled at their head when OTEL_TRACES_SAMPLER is not set. */
export const DEFAULT_SAMPLE_RATIO = 0.1;

function ratioFrom(env: NodeJS.ProcessEnv, fallback: number): number {
  const raw = env.OTEL_TRACES_SAMPLER_ARG;
  if (raw === undefined || raw.trim() === '') return fallback;
  const ratio = Number(raw);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) throw new Error(`OTEL_TRACES_SAMPLER_ARG: a ratio between 0 and 1, not "${raw}"`);
  return ratio;
}

/** The head decision the settings ask for (parent-based 10 % when none is set). */
export function headSampler(env: NodeJS.ProcessEnv): Sampler {
  const name = env.OTEL_TRACES_SAMPLER?.trim() || 'parentbased_traceidratio';
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratioFrom(env, 1));
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratioFrom(env, env.OTEL_TRACES_SAMPLER ? 1 : DEFAULT_SAMPLE_RATIO)) });
    default:
      throw new Error(`OTEL_TRACES_SAMPLER: "${name}" is not one of always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio`);
  }
}

/**
 * The head decision, and for the traces it does not sample, a recorded (not sampled) local root: a span
 * with no parent in this process. Its children, whose parent is local and unsampled, are not recorded.
 */
export class LocalRootsRecorded implements Sampler {
  constructor(private readonly head: Sampler) {}

  shouldSample(context: Context, traceId: string, spanName: string, spanKind: SpanKind, attributes: Attributes, links: Link[]): SamplingResult {
    const result = this.head.shouldSample(context, traceId, spanName, spanKind, attributes, links);
    if (result.decision !== SamplingDecision.NOT_RECORD) return result;
    const parent = trace.getSpanContext(context);
    const localRoot = parent === undefined || parent.isRemote === true;
    return localRoot ? { ...result, decision: SamplingDecision.RECORD } : result;
  }

  toString(): string {
    return `LocalRootsRecorded{${this.head.toString()}}`;
  }
}

/** The span as exported: its trace flags say sampled. */
function asSampled(span: ReadableSpan): ReadableSpan {
  const spanContext = { ...span.spanContext(), traceFlags: span.spanContext().traceFlags | TraceFlags.SAMPLED };
  return Object.create(span, { spanContext: { value: () => spanContext } }) as ReadableSpan;
}

/** Hands sampled spans to the exporting processor, and the recorded spans of unsampled traces that ended in error. */
export class ErrorsKept implements SpanProcessor {
  constructor(private readonly exporting: SpanProcessor) {}

  onStart(span: Span, parentContext: Context): void {
    this.exporting.onStart(span, parentContext);
  }

  onEnd(span: ReadableSpan): void {
    if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0) this.exporting.onEnd(span);
    else if (span.status.code === SpanStatusCode.ERROR) this.exporting.onEnd(asSampled(span));
  }

  forceFlush(): Promise<void> {
    return this.exporting.forceFlush();
  }

  shutdown(): Promise<void> {
    return this.exporting.shutdown();
  }
}
