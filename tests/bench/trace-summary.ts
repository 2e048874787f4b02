/**
 * Where the time of one kind of request goes, from the spans a run exported (BENCH_TRACES_FILE with
 * BENCH_TRACING=1: one OTLP/JSON export per line). Takes the traces that contain a span whose name matches
 * the pattern and prints, per service and span name, how many such spans a trace has and their median and
 * p95 duration.
 *
 *   node --import tsx tests/bench/trace-summary.ts <traces file> '<span name pattern>'
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
        ms: (Number(span.endTimeUnixNano) - Number(span.startTimeUnixNano)) / 1e6,
      })),
    );
  });
}

const [file, pattern] = process.argv.slice(2);
if (!file || !pattern) throw new Error('usage: trace-summary.ts <traces file> <span name pattern>');
const spans = readFileSync(file, 'utf8')
  .split('\n')
  .filter((line) => line.startsWith('{'))
  .flatMap(spansOf);
const matching = new RegExp(pattern);
const traces = new Set(spans.filter((span) => matching.test(span.name)).map((span) => span.traceId));
const groups = new Map<string, number[]>();
for (const span of spans) {
  if (!traces.has(span.traceId)) continue;
  const key = `${span.service}  ${span.name}`;
  groups.set(key, [...(groups.get(key) ?? []), span.ms]);
}
console.log(`${traces.size} traces with a span matching ${pattern}`);
const rows = [...groups].sort((a, b) => b[1].reduce((x, y) => x + y, 0) - a[1].reduce((x, y) => x + y, 0));
for (const [key, durations] of rows) {
  console.log(`${(durations.length / traces.size).toFixed(1).padStart(5)} per trace  p50 ${percentile(durations, 50).toFixed(1).padStart(7)} ms  p95 ${percentile(durations, 95).toFixed(1).padStart(7)} ms  ${key}`);
}
