/**
 * The common shape of every service's HTTP side: request id and JSON logs, metrics, /livez, /readyz and
 * /metrics (open, for probes and scrapers), then everything else only through the gateway's signature.
 * Call `finish()` after mounting routes to add the 404 and problem+json error handlers.
 *
 * The gateway, the one public entry, asks for an `operator` app instead (`operatorRoutes`): /metrics and the
 * detailed readiness are served there, on a port of their own that the public route does not reach, and
 * the public /readyz says ready or not, nothing more.
 */
import { requireInternalSignature, verifyBodyDigest } from '../internal-auth';
import { isDraining } from '../lifecycle';
import type { Logger } from '../logging';
import { httpLogger, networkLogSampleRateOf } from '../logging';
import { createMetrics, readinessMetrics, type Registry } from '../metrics';
import { errorHandler, notFoundHandler, problems, PUBLIC_BASE_URL_LOCAL } from '../problems';
import { serverSpans, tracingStarted } from '../tracing';
import express, { type Express, type Request, type RequestHandler } from 'express';
import helmet, { type HelmetOptions } from 'helmet';

export type ReadinessCheck = () => Promise<void>;

export interface ServiceAppOptions {
  service: string;
  logger: Logger;
  internalSecret: string;
  readiness: Record<string, ReadinessCheck>;
  /** Paths served without the gateway signature besides the probes (none for most services). */
  publicPaths?: string[];
  /** false only for the gateway itself, the one public entry. */
  requireSignature?: boolean;
  /**
   * helmet options, for the gateway: the one public entry sets the security headers of every answer, its
   * upstreams' included. Services behind it set none (they would be a dozen header setters per request,
   * headers the gateway parses and copies, for values it already sets).
   */
  securityHeaders?: HelmetOptions;
  /**
   * Serve /metrics and the detailed readiness (`readiness` plus `details`, at /readyz) on a separate
   * `operator` app; the main app then answers /readyz with its status only.
   */
  operatorRoutes?: { details: Record<string, ReadinessCheck> };
  /** The service's registry (createMetricsRegistry), when its bus, caches or use cases add metrics of their own. */
  registry?: Registry;
  /** PUBLIC_BASE_URL: every problem's `type` is the site's page of its code under it (API.md). */
  publicBaseUrl: string;
}

/** The publishers' high-volume calls, whose routine answers are logged for a sample only (see httpLogger). */
const NETWORK_PATHS = ['/api/network/ad', '/api/network/delivery', '/api/network/click/'];

export interface ServiceApp {
  app: Express;
  /** The app for operators (metrics, detailed readiness), when `operatorRoutes` was asked for. */
  operator?: Express;
  finish(): void;
}

const READINESS_TIMEOUT_MS = 1500;

async function runCheck(check: ReadinessCheck): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), READINESS_TIMEOUT_MS);
      }),
    ]);
    return 'ok';
  } catch {
    return 'unavailable';
  } finally {
    clearTimeout(timer);
  }
}

export async function readinessReport(checks: Record<string, ReadinessCheck>): Promise<{ ready: boolean; checks: Record<string, string> }> {
  const names = Object.keys(checks);
  const results = await Promise.all(names.map((name) => runCheck(checks[name] as ReadinessCheck)));
  const report: Record<string, string> = {};
  names.forEach((name, index) => {
    report[name] = results[index] as string;
  });
  return { ready: results.every((result) => result === 'ok'), checks: report };
}

export function createServiceApp(options: ServiceAppOptions): ServiceApp {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', false);
  app.locals[PUBLIC_BASE_URL_LOCAL] = options.publicBaseUrl;
  // `/METRICS` is not `/metrics`: a path reaches a route only as it is written.
  app.set('case sensitive routing', true);
  const metrics = createMetrics(options.service, options.registry);
  const readiness = readinessMetrics(metrics.registry);

  // First: the request's span is active for everything after it, its log line included.
  if (tracingStarted()) app.use(serverSpans());
  app.use(httpLogger(options.logger, { sampledPaths: NETWORK_PATHS, sampleRate: networkLogSampleRateOf(process.env) }));
  if (options.securityHeaders) app.use(helmet(options.securityHeaders));
  app.use(metrics.middleware);

  const probes = options.operatorRoutes ? express().set('case sensitive routing', true) : app;
  const livez: RequestHandler = (_req, res) => {
    if (isDraining()) res.status(503).json({ status: 'draining', service: options.service });
    else res.json({ status: 'ok', service: options.service });
  };
  app.get('/livez', livez);
  probes.get('/readyz', async (_req, res) => {
    if (isDraining()) return void res.status(503).json({ status: 'draining', service: options.service });
    const report = await readinessReport(options.readiness);
    readiness.observe(report.ready);
    const details = options.operatorRoutes ? await readinessReport(options.operatorRoutes.details) : null;
    const checks = details ? { ...report.checks, ...details.checks } : report.checks;
    res.status(report.ready ? 200 : 503).json({ status: report.ready ? 'ready' : 'not_ready', service: options.service, checks });
  });
  probes.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  if (options.operatorRoutes) {
    probes.get('/livez', livez);
    app.get('/readyz', async (_req, res) => {
      if (isDraining()) return void res.status(503).json({ status: 'draining' });
      const report = await readinessReport(options.readiness);
      res.status(report.ready ? 200 : 503).json({ status: report.ready ? 'ready' : 'not_ready' });
    });
  }

  const publicPaths = options.publicPaths ?? [];
  const signatureCheck = requireInternalSignature(options.internalSecret);
  if (options.requireSignature !== false) app.use((req, res, next) => {
    if (publicPaths.some((path) => req.path === path || req.path.startsWith(`${path}/`))) {
      next();
      return;
    }
    signatureCheck(req, res, next);
  });

  return {
    app,
    ...(options.operatorRoutes ? { operator: probes } : {}),
    finish() {
      app.use(notFoundHandler);
      app.use(errorHandler(options.logger));
    },
  };
}

/**
 * JSON body parser with a limit; a wrong content type leaves the body undefined (validation then refuses
 * it). The bytes must be the body the gateway signed (401 internal_signature_invalid otherwise); they are
 * compared as sent, so a compressed body (Content-Encoding) is refused with 415.
 */
export function jsonBody(limit: string | number = '16kb'): RequestHandler {
  return express.json({
    limit,
    strict: true,
    inflate: false,
    type: ['application/json', 'application/*+json'],
    verify: (req, _res, bytes) => {
      if (!verifyBodyDigest(req as Request, bytes)) {
        throw problems.unauthorized('internal_signature_invalid', 'The body is not the one the gateway signed');
      }
    },
  });
}
