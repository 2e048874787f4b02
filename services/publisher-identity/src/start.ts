/**
 * publisher-identity: config -> MongoDB -> Redis -> bus -> repositories -> key read model rebuilt from
 * the database -> routes -> outbox relay -> listen. stop() undoes it in reverse.
 * It consumes no events; it publishes publisher.submitted, publisher.approved, publisher.paused,
 * publisher.rejected and publisher.key_rotated through its outbox (use-cases/transition-publisher.ts, use-cases/rotate-key.ts).
 */
import { Bus, OutboxRelay } from '@pilot/messaging';
import {
  checkEvictionPolicy,
  createMetricsRegistry,
  createRedis,
  createServiceApp,
  EndedSessionMarkers,
  listen,
  parseIdList,
  pingRedis,
  RedisLimiter,
  registerOutboxBacklog,
  repeatEvery,
  Resources,
  systemClock,
  waitForRedis,
  type Clock,
  type Logger,
  redisTargetOf,
} from '@pilot/platform';
import { sessionCookieName } from '@pilot/contracts';
import { connectMongo, pingMongo, RetentionSweeper, type SweepResult } from '@pilot/storage';
import type { Config } from './config';
import { AccountRepository } from './data/account-repository';
import { PublisherKeyWriter } from './data/key-read-model';
import { LoginRepository } from './data/login-repository';
import { PublisherRepository } from './data/publisher-repository';
import { SessionRepository } from './data/session-repository';
import { mountAuthRoutes } from './http/auth-routes';
import { mountPublisherRoutes } from './http/publisher-routes';
import type { IdentityDeps } from './use-cases/deps';
import { rebuildReadModel } from './use-cases/rebuild-read-model';

export interface StartOptions {
  /** The only source of time (tests pass a ManualClock). */
  clock?: Clock;
}

export interface RunningIdentity {
  url: string;
  port: number;
  /** Publishes every pending outbox event now (tests, shutdown). */
  relay: OutboxRelay;
  /** Rewrites the Redis key read model from the database (what start does; also the periodic repair). */
  rebuildReadModel(): Promise<number>;
  /** One retention sweep now (what the timer does): documents deleted, by collection. */
  sweepRetention(): Promise<SweepResult>;
  stop(): Promise<void>;
}

export async function start(config: Config, logger: Logger, options: StartOptions = {}): Promise<RunningIdentity> {
  const clock = options.clock ?? systemClock;

  const resources = new Resources();
  const metrics = createMetricsRegistry('publisher-identity');
  return resources.openOrClose(async () => {
    const mongo = resources.add(await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB, registry: metrics }), (opened) => opened.close());
    const redis = resources.add(createRedis(redisTargetOf(config), 'publisher-identity'), (opened) => opened.disconnect());
    const bus = resources.add(Bus.fromSettings(config, logger, metrics), (opened) => opened.close());
    await waitForRedis(redis);
    await checkEvictionPolicy(redis, { production: config.isProduction, logger });
    await bus.ready();

    const logins = new LoginRepository(mongo);
    const sessions = new SessionRepository(mongo);
    const accounts = new AccountRepository(mongo);
    const publisherRecords = new PublisherRepository(mongo, { publish: (events) => bus.publishAll(events) });
    // Changes answered before their finish end before the bus and the database close.
    resources.add(publisherRecords, (opened) => opened.settled());
    await logins.ensureIndexes();
    await sessions.ensureIndexes();
    await accounts.ensureIndexes();
    await publisherRecords.ensureIndexes();

    const relay = OutboxRelay.forSource(bus, publisherRecords, config, logger, clock, metrics);
    registerOutboxBacklog(metrics, () => publisherRecords.outboxQueues());
    resources.add(relay, (opened) => opened.stop());
    const readModel = new PublisherKeyWriter(redis, config.REDIS_KEY_PREFIX, await publisherRecords.readModelIncarnation());
    const deps: IdentityDeps = {
      publishers: publisherRecords,
      readModel,
      logins,
      sessions,
      accounts,
      apiBaseUrl: config.PUBLIC_BASE_URL,
      keyGenerationLimit: new RedisLimiter(redis, {
        keyPrefix: `${config.REDIS_KEY_PREFIX}identity:key-generation`,
        points: config.KEY_ROTATION_LIMIT_POINTS,
        windowSeconds: config.KEY_ROTATION_LIMIT_WINDOW_SECONDS,
      }),
      loginLimit: new RedisLimiter(redis, {
        keyPrefix: `${config.REDIS_KEY_PREFIX}identity:login`,
        points: config.LOGIN_LIMIT_POINTS,
        windowSeconds: config.LOGIN_LIMIT_WINDOW_SECONDS,
      }),
      endedSessions: new EndedSessionMarkers(redis, config.REDIS_KEY_PREFIX),
      botUsername: config.TELEGRAM_BOT_USERNAME,
      adminAccountIds: parseIdList(config.ADMIN_ACCOUNT_IDS),
      sessionTtlMs: config.SESSION_TTL_HOURS * 3_600_000,
      clock,
      logger,
    };

    // Redis may have lost the read model, or hold another database's: it is rebuilt before serving.
    const rebuilt = await rebuildReadModel(deps);
    logger.info({ publishers: rebuilt }, 'key read model rebuilt');
    const { app, finish } = createServiceApp({
      service: 'publisher-identity',
      registry: metrics,
      logger,
      internalSecret: config.INTERNAL_SECRET,
      publicBaseUrl: config.PUBLIC_BASE_URL,
      readiness: {
        mongodb: () => pingMongo(mongo),
        rabbitmq: () => bus.ping(),
        redis: () => pingRedis(redis),
      },
    });
    mountAuthRoutes(app, deps, {
      webhookSecret: config.TELEGRAM_WEBHOOK_SECRET,
      sessionCookie: sessionCookieName(config.SESSION_COOKIE, config.PUBLIC_BASE_URL),
      sessionTtlSeconds: config.SESSION_TTL_HOURS * 3600,
      secureCookies: new URL(config.PUBLIC_BASE_URL).protocol === 'https:',
    });
    mountPublisherRoutes(app, deps);
    finish();

    relay.start();
    if (config.READ_MODEL_REPAIR_INTERVAL_MS > 0) {
      const repairs = repeatEvery(config.READ_MODEL_REPAIR_INTERVAL_MS, () => rebuildReadModel(deps), (error) =>
        logger.warn({ err: error.message }, 'key read model repair failed; will retry'),
      );
      resources.add(repairs, (opened) => opened.stop());
    }
    // Per-event documents go once their window has passed; the relay sweeps its own leases.
    const retention = new RetentionSweeper({
      rules: [...logins.retentionRules(), ...sessions.retentionRules()],
      clock,
      logger,
      intervalMs: config.RETENTION_SWEEP_INTERVAL_MS,
    });
    resources.add(retention, (opened) => opened.stop());
    retention.start();
    const server = resources.add(await listen(app, config.PORT, config.HOST), (opened) => opened.close());
    logger.info({ url: server.url }, 'publisher-identity listening');

    return {
      url: server.url,
      port: server.port,
      relay,
      rebuildReadModel: () => rebuildReadModel(deps),
      sweepRetention: () => retention.sweep(),
      stop: () => resources.closeAll(),
    };
  });
}
