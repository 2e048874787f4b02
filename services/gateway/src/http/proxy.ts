/**
 * Forwarding to upstreams with http-proxy-middleware over keep-alive agents. The gateway signs each
 * forwarded call, body included: a body is streamed on chunked, its SHA-256 and a
 * signature of it sent as trailers after it (http-kit body-signature). Any internal x-pilot-* header
 * (http-kit INTERNAL_HEADERS) the client sent is dropped, so nothing reaches a service that the gateway did
 * not vouch for; a client's own headers pass (X-Pilot-Test-Answer of the sandbox). Upstream refused/reset: 502; slower than the timeout: 504.
 * A GET/HEAD refused by a replica is retried once on another replica (nothing reached the first one).
 * A body that declares no length (chunked) is counted as it streams: past `maxBodyBytes` the forward is cut
 * and the answer is 413, as for a declared length over it (checked before forwarding, routes.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { INTERNAL_HEADERS, signBodyInTrailer, signedHeaders, type Principal, HttpError, problems, sendProblem, type Logger } from '@pilot/platform';
import type { NextFunction, Request, Response } from 'express';
import { createProxyMiddleware, type RequestHandler as ProxyHandler } from 'http-proxy-middleware';
import { hasBody } from './has-body';
import type { UpstreamPool, Upstreams } from './upstreams';

interface ForwardState {
  pool: UpstreamPool;
  target: string;
  principal: Principal | null;
  requestId: string;
  clientIp: string;
  retried: boolean;
  timedOut: boolean;
  /** Bytes of a streamed body seen so far, and whether they went past the limit. */
  received: number;
  tooLarge: boolean;
}

const forwards = new WeakMap<IncomingMessage, ForwardState>();

const STRIPPED_HEADERS = Object.values(INTERNAL_HEADERS).filter((name) => name !== INTERNAL_HEADERS.requestId);

export interface ProxyOptions {
  upstreams: Upstreams;
  secret: string;
  timeoutMs: number;
  /** MAX_BODY_BYTES: a streamed body longer than this is cut off and answered 413. */
  maxBodyBytes: number;
  logger: Logger;
}

export function createForwarder(options: ProxyOptions) {
  const gatewayTimeout = () => new HttpError(504, 'gateway_timeout', 'Gateway timeout', 'The service did not answer in time; retry later');
  const badGateway = () => new HttpError(502, 'bad_gateway', 'Bad gateway', 'The service is unreachable; retry later');

  const proxy: ProxyHandler = createProxyMiddleware<IncomingMessage, ServerResponse>({
    target: 'http://127.0.0.1', // replaced per request by the router
    router: (req) => forwards.get(req)?.target ?? 'http://127.0.0.1',
    agent: options.upstreams.agent,
    changeOrigin: false,
    xfwd: false,
    ejectPlugins: true,
    plugins: [
      (server) => {
        server.on('proxyReq', (proxyReq, req) => {
          const state = forwards.get(req);
          if (!state) return;
          for (const name of STRIPPED_HEADERS) proxyReq.removeHeader(name);
          const streamsBody = hasBody(req);
          const headers = signedHeaders(options.secret, {
            method: req.method ?? 'GET',
            url: req.url ?? '/',
            accountId: state.principal?.accountId ?? null,
            admin: state.principal?.admin ?? false,
            displayName: state.principal?.displayName ?? null,
            clientIp: state.clientIp,
            requestId: state.requestId,
            bodyInTrailer: streamsBody,
          });
          for (const [name, value] of Object.entries(headers)) proxyReq.setHeader(name, value);
          // Streamed on as it arrives (a service stopping gracefully still finishes a body begun before).
          if (streamsBody) signBodyInTrailer(proxyReq, options.secret, headers[INTERNAL_HEADERS.signature] as string);
          if (streamsBody && req.headers['content-length'] === undefined) {
            req.on('data', (chunk: Buffer) => {
              state.received += chunk.length;
              if (state.received <= options.maxBodyBytes || state.tooLarge) return;
              state.tooLarge = true;
              proxyReq.destroy();
            });
          }
          proxyReq.setTimeout(options.timeoutMs, () => {
            state.timedOut = true;
            proxyReq.destroy();
          });
        });
        server.on('error', (error, req, res) => {
          const state = forwards.get(req);
          const response = res as ServerResponse;
          const code = (error as NodeJS.ErrnoException).code;
          if (state && !state.timedOut && code === 'ECONNREFUSED') {
            state.pool.markDown(state.target);
            const method = req.method ?? 'GET';
            if (!state.retried && (method === 'GET' || method === 'HEAD') && state.pool.hasOtherHealthy(state.target)) {
              state.retried = true;
              state.target = state.pool.pick(state.target);
              void proxy(req as Request, response as Response, () => undefined);
              return;
            }
          }
          if (!(response instanceof Object) || typeof response.setHeader !== 'function') return;
          if (response.headersSent) {
            response.destroy();
            return;
          }
          if (state?.tooLarge) {
            // The rest of the body is not read: the connection ends with this answer.
            response.setHeader('Connection', 'close');
            sendProblem(response as Response, problems.payloadTooLarge(`Request bodies are limited to ${options.maxBodyBytes} bytes`));
            return;
          }
          options.logger.warn({ upstream: state?.pool.name, code, timedOut: state?.timedOut }, 'upstream failed');
          sendProblem(response as Response, state?.timedOut ? gatewayTimeout() : badGateway());
        });
      },
    ],
  });

  return function forward(req: Request, res: Response, next: NextFunction, pool: UpstreamPool, principal: Principal | null, clientIp: string): void {
    forwards.set(req, { pool, target: pool.pick(), principal, requestId: String(req.id ?? ''), clientIp, retried: false, timedOut: false, received: 0, tooLarge: false });
    proxy(req, res, next).catch(next);
  };
}

export type Forward = ReturnType<typeof createForwarder>;
