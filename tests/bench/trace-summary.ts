/**
 * Where the time of one kind of request goes, from the spans a run exported (BENCH_TRACES_FILE with
 * BENCH_TRACING=1: one OTLP/JSON export per line). Takes the traces that contain a span whose name matches
 * the pattern and prints, per service and span name, how many such spans a trace has and their median and
 * p95 duration. With a count, it then prints that many of the slowest of those traces, each span with its
 * start from the trace's first span (the call) and its duration: whether a slow call is one slow step or
 * all of them.
 *
 *   node --import tsx tests/bench/trace-summary.ts <traces file> '<span name pattern>' [slowest traces=0]
 */
import { readFileSync } from 'node:fs';
import { percentile } from './load';

interface OtlpSpan {
  traceId: string;
  name: string;
  startTimeUnixNano: string | number;
  endTimeUnixNano: string | number;
}
interface OtlpExport {
  resourceSpans?: { resource?: { attributes?: { key: string; value: { stringValue?: string } }[] }; scopeSpans?: { spans?: OtlpSpan[] }[] }[];
}
interface Span {
  traceId: string;
  service: string;
  name: string;
  startMs: number;
  ms: number;
}

function spansOf(line: string): Span[] {
  const parsed = JSON.parse(line) as OtlpExport;
  return (parsed.resourceSpans ?? []).flatMap((resource) => {
    const service = resource.resource?.attributes?.find((attribute) => attribute.key === 'service.name')?.value.stringValue ?? '?';
    return (resource.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: span.traceId,
        service,
        name: span.name,
        startMs: Number(span.startTimeUnixNano) / 1e6,
        ms: (Number(span.endTimeUnixNano) - Number(span.startTimeUnixNano)) / 1e6,
      })),
    );
  });
}

const [file, pattern, slowest = '0'] = process.argv.slice(2);
if (!file || !pattern || !/^\d+$/.test(slowest)) throw new Error('usage: trace-summary.ts <traces file> <span name pattern> [slowest traces]');
const spans = readFileSync(file, 'utf8')
  .split('\n')
  .filter((line) => line.startsWith('{'))
  .flatMap(spansOf);
const matching = new RegExp(pattern);
const traces = new Set(spans.filter((span) => matching.test(span.name)).map((span) => span.traceId));
/** The matching traces' spans, by trace. */
const byTrace = new Map<string, Span[]>();
for (const span of spans) {
  if (!traces.has(span.traceId)) continue;
  const trace = byTrace.get(span.traceId) ?? [];
  if (trace.length === 0) byTrace.set(span.traceId, trace);
  trace.push(span);
}
const groups = new Map<string, number[]>();
for (const span of [...byTrace.values()].flat()) {
  const key = `${span.service}  ${span.name}`;
  const durations = groups.get(key) ?? [];
  if (durations.length === 0) groups.set(key, durations);
  durations.push(span.ms);
}
console.log(`${traces.size} traces with a span matching ${pattern}`);
const rows = [...groups].sort((a, b) => b[1].reduce((x, y) => x + y, 0) - a[1].reduce((x, y) => x + y, 0));
for (const [key, durations] of rows) {
  console.log(`${(durations.length / traces.size).toFixed(1).padStart(5)} per trace  p50 ${percentile(durations, 50).toFixed(1).padStart(7)} ms  p95 ${percentile(durations, 95).toFixed(1).padStart(7)} ms  ${key}`);
}

/** The trace's first span (the call as its caller saw it); the work after the answer comes after its end. */
const rootOf = (trace: Span[]) => trace.reduce((first, span) => (span.startMs < first.startMs || (span.startMs === first.startMs && span.ms > first.ms) ? span : first));
const slowestTraces = [...byTrace.values()].sort((a, b) => rootOf(b).ms - rootOf(a).ms).slice(0, Number(slowest));
for (const trace of slowestTraces) {
  const root = rootOf(trace);
  console.log(`\n${root.service} ${root.name}: ${root.ms.toFixed(1)} ms (start, duration, service, span)`);
  for (const span of [...trace].sort((a, b) => a.startMs - b.startMs)) {
    console.log(`  +${(span.startMs - root.startMs).toFixed(1).padStart(6)}  ${span.ms.toFixed(1).padStart(6)} ms  ${span.service}  ${span.name}`);
  }
}
