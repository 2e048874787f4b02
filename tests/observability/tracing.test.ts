/**
 * Traces across the system: the whole system runs in a child process with tracing on, exporting over
 * OTLP/HTTP to a receiver in this test. One campaign activation is one trace from the administrator's
 * call through the outbox publish to the cache update of allocation and of tracking; an ad request is one
 * trace from the gateway into allocation and Redis, and so are its confirmation and its click; log lines
 * carry the trace id.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { expect } from 'chai';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: { stringValue?: string; intValue?: string | number; boolValue?: boolean } }[];
}
interface Span {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  kind: number;
  attributes: Record<string, string | number | boolean | undefined>;
}
const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;

function spansOf(body: { resourceSpans?: { scopeSpans?: { spans?: OtlpSpan[] }[] }[] }): Span[] {
  return (body.resourceSpans ?? []).flatMap((resource) =>
    (resource.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId || undefined,
        name: span.name,
        kind: span.kind,
        attributes: Object.fromEntries((span.attributes ?? []).map(({ key, value }) => [key, value.stringValue ?? value.intValue ?? value.boolValue])),
      })),
    ),
  );
}

const pathOf = (span: Span) => String(span.attributes['url.path'] ?? span.attributes['http.target'] ?? '');

describe('traces across HTTP and RabbitMQ (OTLP/HTTP to an in-test receiver; real RabbitMQ, Redis, FerretDB)', function () {
  this.timeout(120_000);
  const spans: Span[] = [];
  let receiver: Server;
  let run: { campaignId: number; clickToken: string; statuses: Record<string, number>; logLines: string[] };

  before(async () => {
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        if (req.url === '/v1/traces' && String(req.headers['content-type']).startsWith('application/json')) {
          spans.push(...spansOf(JSON.parse(Buffer.concat(chunks).toString('utf8'))));
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'traced-system.ts')], {
      // Every network call logged (routine ones are sampled by default): the ad request's line is looked for.
      env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_SAMPLER: 'parentbased_always_on', OTEL_BSP_SCHEDULE_DELAY: '100', NETWORK_LOG_SAMPLE_RATE: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code, stderr).to.equal(0);
    run = JSON.parse(stdout.trim().split('\n').pop() as string);
    expect(run.statuses).to.deep.equal({ ad: 200, confirmation: 200, click: 302 });
  });

  after(async () => {
    await new Promise((resolve) => receiver?.close(resolve));
  });

  const inTrace = (traceId: string) => spans.filter((span) => span.traceId === traceId);
  /** True when `ancestor` is `span` or one of its parents. */
  function descends(span: Span, ancestor: Span): boolean {
    const byId = new Map(inTrace(span.traceId).map((s) => [s.spanId, s]));
    for (let current: Span | undefined = span; current; current = current.parentSpanId ? byId.get(current.parentSpanId) : undefined) {
      if (current.spanId === ancestor.spanId) return true;
    }
    return false;
  }
  function rootOf(traceId: string): Span {
    const trace = inTrace(traceId);
    const root = trace.find((span) => !span.parentSpanId);
    expect(root, `trace ${traceId} has a root span`).to.not.equal(undefined);
    return root as Span;
  }

  it('connects an ad request: gateway server span -> client span -> allocation server span -> Redis', function () {
    const adServers = spans.filter((span) => span.kind === SERVER && pathOf(span).startsWith('/api/network/ad'));
    const traceId = adServers.find((span) => !span.parentSpanId)?.traceId;
    expect(traceId, 'the gateway started a trace for the ad request').to.be.a('string');
    const trace = inTrace(traceId as string);
    const gateway = rootOf(traceId as string);
    const allocation = trace.find((span) => span.kind === SERVER && span !== gateway && pathOf(span).startsWith('/api/network/ad'));
    expect(allocation, 'allocation server span in the same trace').to.not.equal(undefined);
    const client = trace.find((span) => span.kind === CLIENT && span.spanId === allocation?.parentSpanId);
    expect(client, "the gateway's forwarding call is the parent of allocation's span").to.not.equal(undefined);
    expect(descends(allocation as Span, gateway)).to.equal(true);
    const redis = trace.filter((span) => span.kind === CLIENT && (span.attributes['db.system'] === 'redis' || span.attributes['db.system.name'] === 'redis'));
    expect(redis.some((span) => descends(span, allocation as Span)), 'a Redis call of allocation in the trace').to.equal(true);
  });

  it('connects a confirmation and a click from the gateway into tracking', function () {
    for (const prefix of ['/api/network/delivery', '/api/network/click/']) {
      const servers = spans.filter((span) => span.kind === SERVER && pathOf(span).startsWith(prefix));
      const root = servers.find((span) => !span.parentSpanId);
      expect(root, `${prefix}: a trace started at the gateway`).to.not.equal(undefined);
      expect(servers.some((span) => span !== root && span.traceId === root?.traceId && descends(span, root as Span)), `${prefix}: tracking's span in it`).to.equal(true);
    }
  });

  it("connects a campaign activation: the administrator's call -> publish -> allocation's and tracking's cache updates", function () {
    const activate = spans.find((span) => span.kind === SERVER && pathOf(span) === `/api/workspace/campaigns/${run.campaignId}/activate` && !span.parentSpanId);
    expect(activate, 'the activation call at the gateway').to.not.equal(undefined);
    const trace = inTrace((activate as Span).traceId);
    const publish = trace.find((span) => span.kind === PRODUCER && span.name === 'campaign.activated publish');
    expect(publish, 'the publish of campaign.activated in the same trace').to.not.equal(undefined);
    const applies = trace.filter((span) => span.name === 'campaign cache apply' && span.attributes['pilot.campaign_id'] !== undefined);
    const owners = applies.filter((span) => descends(span, publish as Span)).map((span) => span.attributes['pilot.cache_owner']);
    expect(owners).to.include.members(['allocation', 'tracking']);
    const consumers = trace.filter((span) => span.kind === CONSUMER && span.name === 'campaign.activated process');
    expect(consumers.length, 'one consumer span per cache').to.be.at.least(2);
  });

  it('names click paths without their tokens, as the logs do', function () {
    const clickSpans = spans.filter((span) => pathOf(span).startsWith('/api/network/click/'));
    expect(clickSpans.length).to.be.at.least(2);
    const leaking = spans.filter((span) => JSON.stringify(span).includes(run.clickToken));
    expect(leaking.map((span) => span.name)).to.deep.equal([]);
  });

  it('puts the trace id in the log lines of the work it traces', function () {
    const traced = run.logLines.map((line) => JSON.parse(line) as { trace_id: string; service?: string });
    const traceIds = new Set(spans.map((span) => span.traceId));
    expect(traced.length).to.be.above(0);
    expect(traced.every((line) => traceIds.has(line.trace_id)), 'every logged trace id was exported').to.equal(true);
    const adTrace = spans.find((span) => span.kind === SERVER && pathOf(span).startsWith('/api/network/ad') && !span.parentSpanId)?.traceId;
    expect(traced.filter((line) => line.trace_id === adTrace).map((line) => line.service)).to.include('allocation');
  });
});
