import { spawn } from 'node:child_process';
import path from 'node:path';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { expect } from 'chai';

interface ExportedSpan {
  name: string;
  kind: SpanKind;
  status: SpanStatusCode;
  attributes: Record<string, unknown>;
  spanId: string;
  traceId: string;
}

interface FixtureRun {
  spans: ExportedSpan[];
  /** The trace of the `traceparent` the fixture sent, the trace a handler after a late body ran in. */
  traceId: string;
  bodyHandledIn: string | null;
  /** The `traceparent` a call made inside a request received, by the sampled flag of the request's parent. */
  forwarded: Record<'00' | '01', string | null>;
  forwardedHeaderList: { traceparent: string | null; probe: string | null };
}

/** Runs the fixture service with `env` added to tracing's settings; the spans it exported. */
async function runFixture(env: NodeJS.ProcessEnv): Promise<FixtureRun> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'fixtures', 'sampled-service.ts')], {
    env: { ...process.env, OTEL_TRACES_SAMPLER: undefined, OTEL_TRACES_SAMPLER_ARG: undefined, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  expect(code).to.equal(0);
  return JSON.parse(output.trim()) as FixtureRun;
}

const spansOf = async (env: NodeJS.ProcessEnv) => (await runFixture(env)).spans;

const serverSpans = (spans: ExportedSpan[], route: string) => spans.filter((span) => span.kind === SpanKind.SERVER && String(span.attributes['http.route'] ?? span.attributes['url.path'] ?? span.name).includes(route));

describe('tracing: sampling in a service', function () {
  this.timeout(60_000);

  it('exports every request answered with 5xx or thrown, even when no trace is sampled at its head', async () => {
    const run = await runFixture({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' });
    // The fixture's own trace, sampled at a parent the fixture sent, is left out.
    const spans = run.spans.filter((span) => span.traceId !== run.traceId);
    expect(serverSpans(spans, '/fine')).to.have.length(0);
    expect(serverSpans(spans, '/throws')).to.have.length(20);
    expect(serverSpans(spans, '/unavailable')).to.have.length(20);
    // Only the server spans of the failed requests: nothing below an unsampled root is recorded.
    expect(spans.every((span) => span.kind === SpanKind.SERVER && span.status === SpanStatusCode.ERROR)).to.equal(true);
  });

  it('samples the share OTEL_TRACES_SAMPLER_ARG sets under the default sampler, every error included', async () => {
    const spans = await spansOf({ OTEL_TRACES_SAMPLER_ARG: '0.5' });
    expect(serverSpans(spans, '/fine').length).to.be.within(1, 19);
    expect(serverSpans(spans, '/throws')).to.have.length(20);
  });

  it('traces every request with OTEL_TRACES_SAMPLER=parentbased_always_on, each server span named by its route', async () => {
    const spans = await spansOf({ OTEL_TRACES_SAMPLER: 'parentbased_always_on' });
    const fine = serverSpans(spans, '/fine');
    expect(fine).to.have.length(20);
    expect(fine.every((span) => span.name === 'GET /fine' && span.attributes['http.route'] === '/fine')).to.equal(true);
    expect(fine.every((span) => span.attributes['http.request.method'] === 'GET' && span.attributes['http.response.status_code'] === 200 && span.attributes['url.path'] === '/fine')).to.equal(true);
    expect(serverSpans(spans, '/unavailable').every((span) => span.status === SpanStatusCode.ERROR && span.attributes['error.type'] === '503')).to.equal(true);
  });

  it('runs a handler that waits for its body in the trace of its request, sampled or not', async () => {
    for (const sampler of ['parentbased_always_off', 'parentbased_always_on']) {
      const run = await runFixture({ OTEL_TRACES_SAMPLER: sampler });
      expect(run.bodyHandledIn, sampler).to.equal(run.traceId);
    }
  });

  it("passes the trace and its head's decision on to the calls a request makes, with a client span only when sampled", async () => {
    const { spans, traceId, forwarded } = await runFixture({});
    const [version, forwardedTrace, parentId, flags] = String(forwarded['00']).split('-');
    expect([version, forwardedTrace, flags]).to.deep.equal(['00', traceId, '00']);
    expect(spans.some((span) => span.spanId === parentId), 'an unsampled call records no span').to.equal(false);
    const sampled = String(forwarded['01']).split('-');
    expect([sampled[1], sampled[3]]).to.deep.equal([traceId, '01']);
    const client = spans.find((span) => span.spanId === sampled[2]);
    expect(client?.kind, 'the sampled call is a client span, the parent of the call it made').to.equal(SpanKind.CLIENT);
  });

  it('keeps the headers of a call that gives them as a list of names and values, and adds the trace to them', async () => {
    const { traceId, forwardedHeaderList } = await runFixture({});
    expect(forwardedHeaderList.probe).to.equal('kept');
    expect(String(forwardedHeaderList.traceparent).split('-')[1]).to.equal(traceId);
  });
});
