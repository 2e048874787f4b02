/**
 * The gateway: the only public entry. Config -> upstream pools -> Redis (the workspace write limit, the
 * ended-session markers) -> the session cache -> app (logs, metrics, probes, security headers) -> routes ->
 * listen. stop() stops accepting, lets in-flight requests finish, closes the agents and Redis.
 */
import {
  checkEvictionPolicy,
  createRedis,
  createServiceApp,
  EndedSessionMarkers,
  listen,
  RedisLimiter,
  systemClock,
  waitForRedis,
  type Clock,
  type Logger,
  redisTargetOf,
} from '@pilot/platform';
import { sessionCookieName } from '@pilot/contracts';
import type { Config } from './config';
import type { Upstream } from './domain/routing';
import { createForwarder } from './http/proxy';
import { mountRoutes } from './http/routes';
import { securityHeaders } from './http/security-headers';
import { resolveSession } from './http/session';
import { SessionCache } from './http/session-cache';
import { Upstreams } from './http/upstreams';

export interface StartOptions {
  /** The only source of time (tests pass a ManualClock): when a kept session stops being used. */
  clock?: Clock;
}

export interface RunningGateway {
  url: string;
  port: number;
  /** Where /metrics and the detailed readiness are served (not through the public port). */
  operatorUrl: string;
  stop(): Promise<void>;
}

async function upstreamReady(url: string): Promise<void> {
  const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1200) });
  if (!response.ok) throw new Error(`${url} not ready`);
}

export async function start(config: Config, logger: Logger, options: StartOptions = {}): Promise<RunningGateway> {
  const upstreams = new Upstreams({
    identity: config.IDENTITY_URLS,
    campaign: config.CAMPAIGN_URLS,
    allocation: config.ALLOCATION_URLS,
    tracking: config.TRACKING_URLS,
    placement: config.PLACEMENT_URLS,
    notification: config.NOTIFICATION_URLS,
    web: config.WEB_URLS,
  } satisfies Record<Upstream, string[]>);

  // The gateway's readiness is its own: a service that is down must not take ad serving out of the load
  // balancer with it. The operator port reports every replica of every upstream.
  const upstreamReport = Object.fromEntries(
    upstreams.all().flatMap((pool) =>
      pool.urls().map((url, index) => [pool.urls().length > 1 ? `${pool.name}#${index + 1}` : pool.name, () => upstreamReady(url)]),
    ),
  );

  // Waited for a moment only: the gateway serves ads and pages without Redis; workspace writes need it
  // (503 until it answers), kept sessions are resolved with publisher-identity again until it answers.
  const redis = createRedis(redisTargetOf(config), 'gateway');
  if (await waitForRedis(redis, 3000).then(() => true, () => false)) await checkEvictionPolicy(redis, { production: config.isProduction, logger });
  else logger.warn('Redis not ready; workspace writes answer 503 until it is');
  const workspaceWriteLimit = new RedisLimiter(redis, {
    keyPrefix: `${config.REDIS_KEY_PREFIX}gateway:workspace-writes`,
    points: config.WORKSPACE_WRITE_LIMIT_POINTS,
    windowSeconds: 60,
  });
  const identity = upstreams.pool('identity');
  const sessions = new SessionCache({
    resolve: (sessionId, requestId) => resolveSession(identity, config.INTERNAL_SECRET, sessionId, requestId),
    markers: new EndedSessionMarkers(redis, config.REDIS_KEY_PREFIX),
    clock: options.clock ?? systemClock,
    maxAgeMs: config.SESSION_CACHE_MS,
  });

  const { app, operator, finish } = createServiceApp({
    service: 'gateway',
    logger,
    internalSecret: config.INTERNAL_SECRET,
    publicBaseUrl: config.PUBLIC_BASE_URL,
    readiness: {},
    operatorRoutes: { details: upstreamReport },
    requireSignature: false,
    securityHeaders,
  });
  // X-Forwarded-For is believed only from the configured proxies; req.ip is then the client's address.
  app.set('trust proxy', config.TRUSTED_PROXIES.length > 0 ? config.TRUSTED_PROXIES : false);
  mountRoutes(app, {
    upstreams,
    forward: createForwarder({ upstreams, secret: config.INTERNAL_SECRET, timeoutMs: config.UPSTREAM_TIMEOUT_MS, maxBodyBytes: config.MAX_BODY_BYTES, logger }),
    secret: config.INTERNAL_SECRET,
    siteOrigin: new URL(config.PUBLIC_BASE_URL).origin,
    sessionCookie: sessionCookieName(config.SESSION_COOKIE, config.PUBLIC_BASE_URL),
    sessions,
    maxBodyBytes: config.MAX_BODY_BYTES,
    workspaceWriteLimit,
  });
  finish();

  upstreams.startProbing();
  const server = await listen(app, config.GATEWAY_PORT, config.HOST);
  const operatorServer = await listen(operator!, config.GATEWAY_OPERATOR_PORT, config.HOST);
  logger.info({ url: server.url, operatorUrl: operatorServer.url }, 'gateway listening');

  return {
    url: server.url,
    port: server.port,
    operatorUrl: operatorServer.url,
    async stop() {
      await Promise.all([server.close(), operatorServer.close()]);
      upstreams.stop();
      redis.disconnect();
    },
  };
}


