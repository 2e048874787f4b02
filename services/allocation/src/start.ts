/**
 * allocation: the ad request hot path. Reads top to bottom as the service's life:
 * config -> Redis (key read model, limit and count) -> bus -> selection index + campaign cache subscription
 * -> routes -> listen. stop() undoes it in reverse: server, subscriptions and bus, Redis.
 * Nothing here waits for the infrastructure to be up: connections retry in the background, /readyz tells
 * when Redis, RabbitMQ and the campaign snapshot are all in place, and until then requests answer 503.
 */
import { Bus } from '@pilot/messaging';
import { CountRecorder } from '@pilot/counting';
import { campaignSnapshotLoader, registerCampaignCacheMetrics, type ActiveCampaignCache } from '@pilot/campaign-cache';
import {
  checkEvictionPolicy,
  createMetricsRegistry,
  createRedis,
  createServiceApp,
  listen,
  pingRedis,
  Resources,
  systemClock,
  waitForRedis,
  type Clock,
  type Logger,
  redisTargetOf,
} from '@pilot/platform';
import { KeyReader, KeyUseRecorder } from '@pilot/publisher-keys';
import { subscribe } from './bus/subscriptions';
import type { Config } from './config';
import { CampaignIndex, type Random } from './domain/selection';
import { adAnswersCounter } from './http/ad-answers-counter';
import { mountRoutes } from './http/routes';

export interface StartOptions {
  clock?: Clock;
  random?: Random;
}

export interface RunningAllocation {
  url: string;
  port: number;
  /** For tests: the selection index and the cache that feeds it. */
  index: CampaignIndex;
  cache: ActiveCampaignCache;
  bus: Bus;
  stop(): Promise<void>;
}

export async function start(config: Config, logger: Logger, options: StartOptions = {}): Promise<RunningAllocation> {
  const clock = options.clock ?? systemClock;

  const resources = new Resources();
  const metrics = createMetricsRegistry('allocation');
  return resources.openOrClose(async () => {
    const redis = resources.add(createRedis(redisTargetOf(config), 'allocation'), (opened) => opened.disconnect());
    // Allocation starts without Redis (its ad requests answer 503 until Redis answers); its eviction policy
    // is checked when Redis answers within a moment, as every service that counts does.
    if (await waitForRedis(redis, 3000).then(() => true, () => false)) await checkEvictionPolicy(redis, { production: config.isProduction, logger });
    else logger.warn('Redis not ready at start; its maxmemory-policy (noeviction) is not checked');
    const publishers = new KeyReader(redis, config.REDIS_KEY_PREFIX, config.DEPENDENCY_TIMEOUT_MS, clock);
    const keyUses = new KeyUseRecorder(redis, config.REDIS_KEY_PREFIX, (error) => logger.warn({ err: error }, 'key use not recorded'));
    const counts = new CountRecorder(redis, config.REDIS_KEY_PREFIX, config.DEPENDENCY_TIMEOUT_MS, config.COUNT_INTERVAL_MS);

    const bus = resources.add(Bus.fromSettings(config, logger, metrics), (opened) => opened.close());

    const index = new CampaignIndex(options.random);
    const { campaigns: cache } = subscribe({
      bus,
      index,
      logger,
      loadSnapshot: campaignSnapshotLoader({
        secret: config.INTERNAL_SECRET,
        campaignUrl: config.CAMPAIGN_URL,
        timeoutMs: config.SNAPSHOT_TIMEOUT_MS,
        logger,
      }),
    });

    registerCampaignCacheMetrics(metrics, cache);

    const { app, finish } = createServiceApp({
      service: 'allocation',
      registry: metrics,
      logger,
      internalSecret: config.INTERNAL_SECRET,
      publicBaseUrl: config.PUBLIC_BASE_URL,
      readiness: {
        redis: () => pingRedis(redis),
        rabbitmq: () => bus.ping(),
        campaignSnapshot: async () => {
          if (!cache.isReady()) throw new Error('campaign snapshot not loaded');
        },
      },
    });
    mountRoutes(app, {
      publishers,
      keyUses,
      counts,
      index,
      indexReady: () => cache.isReady(),
      clock,
      tokenSecret: config.TOKEN_SECRET,
      publicBaseUrl: config.PUBLIC_BASE_URL,
    }, adAnswersCounter(metrics));
    finish();

    const server = resources.add(await listen(app, config.PORT, config.HOST), (opened) => opened.close());
    logger.info({ url: server.url }, 'allocation listening');

    return {
      url: server.url,
      port: server.port,
      index,
      cache,
      bus,
      stop: () => resources.closeAll(),
    };
  });
}
