/**
 * The notification service: config -> MongoDB -> Redis -> bus -> repositories -> the Bot API sender ->
 * routes -> subscriptions -> retention -> listen. stop() undoes it in reverse.
 */
import { Bus } from '@pilot/messaging';
import {
  createMetricsRegistry,
  createRedis,
  createServiceApp,
  internalGet,
  listen,
  pingRedis,
  RedisLimiter,
  Resources,
  systemClock,
  waitForRedis,
  type Clock,
  type Logger,
  redisTargetOf,
} from '@pilot/platform';
import { connectMongo, pingMongo, RetentionSweeper } from '@pilot/storage';
import { BotApi } from './bot/bot-api';
import { NOTIFICATION_QUEUE, subscribe } from './bus/subscriptions';
import type { Config } from './config';
import { BlockRepository } from './data/block-repository';
import { DeliveryRepository } from './data/delivery-repository';
import { ReviewQueueRepository } from './data/review-queue-repository';
import { SettingsRepository } from './data/settings-repository';
import { mountRoutes } from './http/routes';
import { notificationCounters, registerNotificationBacklog } from './http/notification-metrics';
import type { NotificationDeps } from './use-cases/deps';
import { sendingProcess, stopSending } from './use-cases/sending-process';

export interface StartOptions {
  clock?: Clock;
  /** Pauses between send attempts that got no answer (tests shorten them). */
  retryPausesMs?: number[];
}

export interface RunningNotification {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** What was sent is kept two weeks: longer than an event can wait parked (a week) and be delivered again. */
const KEEP_SENT_MS = 14 * 24 * 3600 * 1000;
const RETENTION_SWEEP_MS = 3600 * 1000;

export async function start(config: Config, logger: Logger, options: StartOptions = {}): Promise<RunningNotification> {
  const clock = options.clock ?? systemClock;

  const resources = new Resources();
  const metrics = createMetricsRegistry('notification');
  return resources.openOrClose(async () => {
    const mongo = resources.add(await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB, registry: metrics }), (opened) => opened.close());
    const redis = resources.add(createRedis(redisTargetOf(config), 'notification'), (opened) => opened.disconnect());
    const bus = resources.add(Bus.fromSettings(config, logger, metrics), (opened) => opened.close());
    await waitForRedis(redis);
    await bus.ready();

    const deliveries = new DeliveryRepository(mongo);
    const queue = new ReviewQueueRepository(mongo);
    await deliveries.ensureIndexes();
    await queue.ensureIndexes();

    if (config.TELEGRAM_BOT_TOKEN === '') logger.warn('TELEGRAM_BOT_TOKEN is not set: no notification is sent');
    const bot = config.TELEGRAM_BOT_TOKEN === '' ? null : new BotApi({ baseUrl: config.TELEGRAM_API_BASE_URL, token: config.TELEGRAM_BOT_TOKEN, timeoutMs: config.BOT_API_TIMEOUT_MS });
    const sending = sendingProcess();
    const deps: NotificationDeps = {
      deliveries,
      blocks: new BlockRepository(mongo),
      settings: new SettingsRepository(mongo),
      queue,
      bot,
      limiter: new RedisLimiter(redis, {
        keyPrefix: `${config.REDIS_KEY_PREFIX}notification:sends`,
        points: config.BOT_SEND_LIMIT_PER_SECOND,
        windowSeconds: 1,
        timeoutMs: config.DEPENDENCY_TIMEOUT_MS,
      }),
      lastSignInAt: async (accountId) => {
        const { lastSignInAt } = await internalGet<{ lastSignInAt: string | null }>(config.INTERNAL_SECRET, config.IDENTITY_URL, `/internal/accounts/${accountId}/sign-in`);
        return lastSignInAt ? new Date(lastSignInAt) : null;
      },
      counters: notificationCounters(metrics),
      leaseMs: config.NOTIFICATION_LEASE_MS,
      ...(options.retryPausesMs ? { retryPausesMs: options.retryPausesMs } : {}),
      sending,
      adminAccountIds: config.ADMIN_ACCOUNT_IDS,
      publicBaseUrl: config.PUBLIC_BASE_URL,
      summaryIntervalMs: config.QUEUE_SUMMARY_INTERVAL_MS,
      maxAgeMs: config.NOTIFICATION_MAX_AGE_MS,
      clock,
      logger,
    };
    // Before the bus closes: sends waiting on the platform end, their events stay unacknowledged.
    resources.add(sending, (opened) => stopSending(opened));

    const { app, finish } = createServiceApp({
      service: 'notification',
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
    mountRoutes(app, deps);
    finish();

    await subscribe({ bus, deps, prefetch: config.NOTIFICATION_PREFETCH });
    registerNotificationBacklog(metrics, () => bus.durableQueueDepth(NOTIFICATION_QUEUE));

    const sweeper = resources.add(
      new RetentionSweeper({ rules: [...deliveries.retentionRules(KEEP_SENT_MS), ...queue.retentionRules(KEEP_SENT_MS)], clock, logger, intervalMs: RETENTION_SWEEP_MS }),
      (opened) => opened.stop(),
    );
    sweeper.start();

    const server = resources.add(await listen(app, config.PORT, config.HOST), (opened) => opened.close());
    logger.info({ url: server.url, sending: bot !== null }, 'notification listening');

    return {
      url: server.url,
      port: server.port,
      stop: () => resources.closeAll(),
    };
  });
}
