import type { RequestHandler } from 'express';
import { collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export type { Registry } from 'prom-client';
export * from './metric-helpers';
export * from './answer-outcome';
export * from './backlog-gauges';
export * from './readiness-metrics';

/**
 * A service's metrics registry: Node's process metrics, every series labelled `service`. Created first in a
 * composition root, so the bus, caches and use cases register their metrics in it before the app serves it.
 */
export function createMetricsRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

export function createMetrics(service: string, registry: Registry = createMetricsRegistry(service)): { registry: Registry; middleware: RequestHandler } {
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request duration by route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  const middleware: RequestHandler = (req, res, next) => {
    const end = duration.startTimer();
    res.once('finish', () => {
      // The matched route pattern, never the raw path, so tokens and ids do not become label values.
      const route = (req.route as { path?: string } | undefined)?.path;
      end({ method: req.method, route: route ? `${req.baseUrl}${route}` : 'unmatched', status: String(res.statusCode) });
    });
    next();
  };
  return { registry, middleware };
}
