// The baseline's upstream: the least a service can do. Every request answers a small JSON body, like /livez
// (also the OTLP sink of the tracing phase and of BENCH_TRACING=1: it accepts every export and drops it, or
// appends each request body as one line to the file KEEP_BODIES_IN, e.g. to read the spans of a run).
import { appendFileSync } from 'node:fs';
import { createServer } from 'node:http';

const body = JSON.stringify({ status: 'ok', service: 'trivial-upstream' });
const keepIn = process.env.KEEP_BODIES_IN;
const server = createServer((req, res) => {
  const answer = () => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  };
  if (!keepIn) return answer();
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    if (chunks.length > 0) appendFileSync(keepIn, `${Buffer.concat(chunks).toString('utf8').replace(/\n/g, ' ')}\n`);
    answer();
  });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
