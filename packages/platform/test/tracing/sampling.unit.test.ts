import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { expect } from 'chai';
import { DEFAULT_SAMPLE_RATIO, ErrorsKept, headSampler, LocalRootsRecorded } from '../../src/tracing/sampling';

function tracedWith(env: NodeJS.ProcessEnv) {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    sampler: new LocalRootsRecorded(headSampler(env)),
    spanProcessors: [new ErrorsKept(new SimpleSpanProcessor(exporter))],
  });
  return { exporter, tracer: provider.getTracer('test') };
}

/** A request as a server span with one child span (a store call), ending in `status`. */
function request(tracer: ReturnType<typeof tracedWith>['tracer'], failed: boolean, parent = ROOT_CONTEXT): void {
  const server = tracer.startSpan('GET /api/network/ad', { kind: SpanKind.SERVER }, parent);
  tracer.startSpan('redis evalsha', {}, trace.setSpan(parent, server)).end();
  if (failed) server.setStatus({ code: SpanStatusCode.ERROR });
  server.end();
}

const REQUESTS = 2000;

describe('tracing: sampling', () => {
  it('samples about a tenth of the traces by default, each with all its spans', () => {
    const { exporter, tracer } = tracedWith({});
    for (let i = 0; i < REQUESTS; i += 1) request(tracer, false);
    const spans = exporter.getFinishedSpans();
    const servers = spans.filter((span) => span.kind === SpanKind.SERVER);
    expect(DEFAULT_SAMPLE_RATIO).to.equal(0.1);
    // 200 expected; the trace ids are random: 120 to 280 is more than six standard deviations either side.
    expect(servers.length).to.be.within(120, 280);
    expect(spans.length).to.equal(servers.length * 2);
  });

  it('exports every failed request, its server span, when its trace is not sampled', () => {
    const { exporter, tracer } = tracedWith({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' });
    for (let i = 0; i < 10; i += 1) request(tracer, i % 2 === 0);
    const spans = exporter.getFinishedSpans();
    expect(spans).to.have.length(5);
    for (const span of spans) {
      expect(span.kind).to.equal(SpanKind.SERVER);
      expect(span.status.code).to.equal(SpanStatusCode.ERROR);
      expect(span.spanContext().traceFlags & TraceFlags.SAMPLED).to.equal(TraceFlags.SAMPLED);
    }
  });

  it('follows an unsampled parent from another process, recording only its local root for errors', () => {
    const { exporter, tracer } = tracedWith({});
    const remote = trace.setSpanContext(ROOT_CONTEXT, { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: TraceFlags.NONE, isRemote: true });
    const server = tracer.startSpan('POST /internal', { kind: SpanKind.SERVER }, remote);
    const child = tracer.startSpan('mongodb.find', {}, trace.setSpan(remote, server));
    expect(server.isRecording()).to.equal(true);
    expect(child.isRecording()).to.equal(false);
    child.end();
    server.end();
    expect(exporter.getFinishedSpans()).to.have.length(0);

    request(tracer, true, remote);
    const [exported] = exporter.getFinishedSpans();
    expect(exported?.spanContext().traceId).to.equal('a'.repeat(32));
  });

  it('follows a sampled parent from another process', () => {
    const { exporter, tracer } = tracedWith({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' });
    const remote = trace.setSpanContext(ROOT_CONTEXT, { traceId: 'c'.repeat(32), spanId: 'd'.repeat(16), traceFlags: TraceFlags.SAMPLED, isRemote: true });
    request(tracer, false, remote);
    expect(exporter.getFinishedSpans()).to.have.length(2);
  });

  it('traces everything with OTEL_TRACES_SAMPLER=parentbased_always_on, and a share set by OTEL_TRACES_SAMPLER_ARG', () => {
    const all = tracedWith({ OTEL_TRACES_SAMPLER: 'parentbased_always_on' });
    for (let i = 0; i < 100; i += 1) request(all.tracer, false);
    expect(all.exporter.getFinishedSpans()).to.have.length(200);

    const half = tracedWith({ OTEL_TRACES_SAMPLER_ARG: '0.5' });
    for (let i = 0; i < REQUESTS; i += 1) request(half.tracer, false);
    expect(half.exporter.getFinishedSpans().length / 2).to.be.within(860, 1140);
  });

  it('refuses a sampler or a ratio it does not know', () => {
    expect(() => headSampler({ OTEL_TRACES_SAMPLER: 'sometimes' })).to.throw(/OTEL_TRACES_SAMPLER/);
    expect(() => headSampler({ OTEL_TRACES_SAMPLER_ARG: '2' })).to.throw(/OTEL_TRACES_SAMPLER_ARG/);
  });
});
