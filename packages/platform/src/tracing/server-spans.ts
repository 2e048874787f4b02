/**
 * The server span of each request a service answers, started by the first middleware of the service's app
 * (createServiceApp) when tracing is on, in place of the HTTP instrumentation's incoming side: that one
 * reads a score of attributes, starts the span and binds the request's and the response's listeners
 * before the sampler has a say, on every request. Here a request whose trace is not kept costs the
 * context's extraction, the head decision and a bare span (the local root sampling.ts records so that an
 * error is kept); the attributes and the route's name are read only for a span that is exported (its
 * trace sampled, or its answer a 5xx). The request's listeners are not bound to its context: the body
 * parser keeps the context of the middleware that waits for the body (a handler after a late body runs in
 * its request's trace: tested).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Attributes, type Span } from '@opentelemetry/api';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { redactUrl } from '../logging';

/** Probes and scrapes are not traced: they would be most of the spans and say nothing. */
const UNTRACED_PATHS = new Set(['/livez', '/readyz', '/metrics']);

const tracer = trace.getTracer('@pilot/platform/http');

function exported(span: Span, res: ServerResponse): boolean {
  return (span.spanContext().traceFlags & TraceFlags.SAMPLED) !== 0 || res.statusCode >= 500;
}

/** The Express route that answered (`/api/workspace/campaigns/:id`), when one did. */
function routeOf(req: IncomingMessage): string | undefined {
  const { route, baseUrl } = req as Request;
  return typeof route?.path === 'string' ? `${baseUrl ?? ''}${route.path}` : undefined;
}

/** The stable HTTP semantic conventions; click tokens ride in paths, so the path is redacted as the logs do. */
function attributesOf(req: IncomingMessage, res: ServerResponse, route: string | undefined): Attributes {
  const [path = '/', query] = redactUrl(req.url ?? '/').split('?');
  const [host, port] = (req.headers.host ?? '').split(':');
  return {
    'http.request.method': req.method ?? 'GET',
    'url.scheme': 'http',
    'url.path': path,
    ...(query ? { 'url.query': query } : {}),
    ...(route ? { 'http.route': route } : {}),
    'http.response.status_code': res.statusCode,
    'network.protocol.version': req.httpVersion,
    ...(host ? { 'server.address': host } : {}),
    ...(port ? { 'server.port': Number(port) } : {}),
    ...(req.socket.remoteAddress ? { 'network.peer.address': req.socket.remoteAddress } : {}),
    ...(req.headers['user-agent'] ? { 'user_agent.original': req.headers['user-agent'] } : {}),
    ...(res.statusCode >= 500 ? { 'error.type': String(res.statusCode) } : {}),
  };
}

function ended(span: Span, req: IncomingMessage, res: ServerResponse): void {
  if (exported(span, res)) {
    const route = routeOf(req);
    span.setAttributes(attributesOf(req, res, route));
    span.updateName(`${req.method ?? 'GET'}${route ? ` ${route}` : ''}`);
    if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
}

/** The middleware: the request's server span, active for everything after it. */
export function serverSpans(): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) => {
    if (UNTRACED_PATHS.has(req.path)) return next();
    const parent = propagation.extract(ROOT_CONTEXT, req.headers);
    const span = tracer.startSpan(req.method, { kind: SpanKind.SERVER }, parent);
    const active = trace.setSpan(parent, span);
    res.once('close', () => ended(span, req, res));
    context.with(active, next);
  };
}
