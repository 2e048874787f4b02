// The baseline's upstream: the least a service can do. Every request answers a small JSON body, like /livez
// (also the OTLP sink of BENCH_TRACING=1: it accepts and drops every export).
import { createServer } from 'node:http';

const body = JSON.stringify({ status: 'ok', service: 'trivial-upstream' });
const server = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  res.end(body);
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
