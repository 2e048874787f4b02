import { spawn } from 'node:child_process';
import path from 'node:path';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { expect } from 'chai';

interface ExportedSpan {
  name: string;
  kind: SpanKind;
  status: SpanStatusCode;
  attributes: Record<string, unknown>;
}

/** Runs the fixture service with `env` added to tracing's settings; the spans it exported. */
async function spansOf(env: NodeJS.ProcessEnv): Promise<ExportedSpan[]> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'fixtures', 'sampled-service.ts')], {
    env: { ...process.env, OTEL_TRACES_SAMPLER: undefined, OTEL_TRACES_SAMPLER_ARG: undefined, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  expect(code).to.equal(0);
  return JSON.parse(output.trim()) as ExportedSpan[];
}

const serverSpans = (spans: ExportedSpan[], route: string) => spans.filter((span) => span.kind === SpanKind.SERVER && String(span.attributes['http.route'] ?? span.attributes['url.path'] ?? span.name).includes(route));

describe('tracing: sampling in a service', function () {
  this.timeout(60_000);

  it('exports every request answered with 5xx or thrown, even when no trace is sampled at its head', async () => {
    const spans = await spansOf({ OTEL_TRACES_SAMPLER: 'parentbased_always_off' });
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
  });
});
