/**
 * Tracking's composition root: config -> MongoDB -> Redis -> bus -> records, caches -> routes ->
 * subscriptions -> listen. stop() undoes it in reverse: server, subscriptions and bus, Redis, MongoDB.
 */
import { Bus } from '@pilot/bus';
import { ActiveCampaignCache, type CachedCampaign } from '@pilot/campaign-cache';
import { systemClock, type Clock } from '@pilot/config';
import { createServiceApp, internalGet, listen, Resources } from '@pilot/http-kit';
import { KeyReader } from '@pilot/key-read-model';
import type { Logger } from '@pilot/logging';
import { connectMongo, pingMongo } from '@pilot/mongo';
import { createRedis, pingRedis, waitForRedis } from '@pilot/redis';
import { subscribe, type SubscriptionHooks } from './bus/subscriptions';
import type { Config } from './config';
import { TrackingRecords } from './data/records';
import { mountRoutes } from './http/routes';

export interface StartOptions {
  clock?: Clock;
  hooks?: SubscriptionHooks;
}

export interface RunningTracking {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export async function start(config: Config, logger: Logger, options: StartOptions = {}): Promise<RunningTracking> {
  const clock = options.clock ?? systemClock;

  const resources = new Resources();
  return resources.openOrClose(async () => {
    const mongo = resources.add(await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB }), (opened) => opened.close());
    const redis = resources.add(createRedis(config.REDIS_URL, 'tracking'), (opened) => opened.disconnect());
    const bus = resources.add(Bus.fromSettings(config, logger), (opened) => opened.close());
    await waitForRedis(redis);
    await bus.ready();

    const records = new TrackingRecords(mongo, config.DEPENDENCY_TIMEOUT_MS);
    await records.ensureIndexes();
    const publishers = new KeyReader(redis, config.REDIS_KEY_PREFIX, config.DEPENDENCY_TIMEOUT_MS);
    const campaigns = new ActiveCampaignCache({
      bus,
      logger,
      loadSnapshot: async () =>
        (await internalGet<{ items: CachedCampaign[] }>(config.INTERNAL_SECRET, config.CAMPAIGN_URL, '/internal/campaigns/active')).items,
    });

    const { app, finish } = createServiceApp({
      service: 'tracking',
      logger,
      internalSecret: config.INTERNAL_SECRET,
      readiness: {
        mongodb: () => pingMongo(mongo),
        redis: () => pingRedis(redis),
        rabbitmq: () => bus.ping(),
        campaigns: async () => {
          if (!campaigns.isReady()) throw new Error('active campaigns not loaded');
        },
      },
    });
    mountRoutes(app, { records, publishers, campaigns, tokenSecret: config.TOKEN_SECRET, clock, logger });
    finish();

    await subscribe(bus, { records, campaigns, logger }, options.hooks);
    const server = resources.add(await listen(app, config.PORT, config.HOST), (opened) => opened.close());
    logger.info({ url: server.url }, 'tracking listening');

    return {
      url: server.url,
      port: server.port,
      stop: () => resources.closeAll(),
    };
  });
}
