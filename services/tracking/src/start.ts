/**
 * Tracking's composition root: config -> MongoDB -> Redis -> bus -> counting and totals, subscriptions
 * (the campaign cache) -> routes -> count folder -> listen. stop() undoes it in reverse.
 */
import { Bus } from '@pilot/messaging';
import { campaignSnapshotLoader, registerCampaignCacheMetrics } from '@pilot/campaign-cache';
import {
  checkEvictionPolicy,
  internalGet,
  createMetricsRegistry,
  createRedis,
  createServiceApp,
  listen,
  pingRedis,
  registerCountingLag,
  Resources,
  systemClock,
  waitForRedis,
  type Clock,
  type Logger,
  redisTargetOf,
} from '@pilot/platform';
import { CountJournal, CountRecorder, UnfoldedCounts } from '@pilot/counting';
import { COUNT_FOLDING, CountFolder, TotalsStore } from '@pilot/counting/totals';
import { KeyReader } from '@pilot/publisher-keys';
import { connectMongo, pingMongo, RetentionSweeper } from '@pilot/storage';
import { subscribe } from './bus/subscriptions';
import type { Config } from './config';
import { mountRoutes } from './http/routes';
import { trackingCounters } from './http/tracking-counters';
import { CampaignTraitsLookup, campaignTraitsReader } from './use-cases/campaign-traits';

/** How often the hourly figures past their retention are deleted (the retention sweep). */
const RETENTION_SWEEP_MS = 3600 * 1000;
/** A folder command (a batch's grains, a chunk of counts) may take this long before the pass fails and starts again. */
const FOLDER_REDIS_TIMEOUT_MS = 10_000;

export interface StartOptions {
  clock?: Clock;
}

export interface RunningTracking {
  url: string;
  port: number;
  /** Moves counts into the MongoDB totals now (what the folder does every COUNT_FOLD_INTERVAL_MS). */
  folder: CountFolder;
  /** Deletes the hourly figures past their retention now (what it does every hour). */
  retention: RetentionSweeper;
  stop(): Promise<void>;
}


export async function start(config: Config, logger: Logger, options: StartOptions = {}): Promise<RunningTracking> {
  const clock = options.clock ?? systemClock;

  const resources = new Resources();
  const metrics = createMetricsRegistry('tracking');
  return resources.openOrClose(async () => {
    const mongo = resources.add(await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB, registry: metrics }), (opened) => opened.close());
    const redis = resources.add(createRedis(redisTargetOf(config), 'tracking'), (opened) => opened.disconnect());
    const bus = resources.add(Bus.fromSettings(config, logger, metrics), (opened) => opened.close());
    await waitForRedis(redis);
    await checkEvictionPolicy(redis, { production: config.isProduction, logger });
    await bus.ready();

    const counts = new CountRecorder(redis, config.REDIS_KEY_PREFIX, config.DEPENDENCY_TIMEOUT_MS, config.COUNT_INTERVAL_MS);
    const unfolded = new UnfoldedCounts(redis, config.REDIS_KEY_PREFIX, config.DEPENDENCY_TIMEOUT_MS);
    const totals = new TotalsStore(mongo, config.DEPENDENCY_TIMEOUT_MS);
    await totals.ensureIndexes();
    // The folder's commands carry a batch: on a busy Redis they take longer than a request's may, and one
    // that times out makes the whole pass start again.
    const folderRedis = resources.add(createRedis(redisTargetOf(config), 'tracking-folder', { commandTimeoutMs: FOLDER_REDIS_TIMEOUT_MS }), (opened) => opened.disconnect());
    const journal = new CountJournal(folderRedis, config.REDIS_KEY_PREFIX);
    registerCountingLag(metrics, journal);
    const folder = resources.add(
      new CountFolder({ journal, totals, clock, logger, tickMs: config.COUNT_FOLD_INTERVAL_MS, ...COUNT_FOLDING }),
      (opened) => opened.stop(),
    );
    const publishers = new KeyReader(redis, config.REDIS_KEY_PREFIX, config.DEPENDENCY_TIMEOUT_MS, clock);
    const { campaigns } = subscribe({
      bus,
      logger,
      loadSnapshot: campaignSnapshotLoader({ secret: config.INTERNAL_SECRET, campaignUrl: config.CAMPAIGN_URL, logger }),
    });

    registerCampaignCacheMetrics(metrics, campaigns);
    const campaignTraits = new CampaignTraitsLookup(
      campaigns,
      campaignTraitsReader((path) => internalGet(config.INTERNAL_SECRET, config.CAMPAIGN_URL, path, config.DEPENDENCY_TIMEOUT_MS)),
      () => clock.now().getTime(),
      logger,
    );

    const { app, finish } = createServiceApp({
      service: 'tracking',
      registry: metrics,
      logger,
      internalSecret: config.INTERNAL_SECRET,
      publicBaseUrl: config.PUBLIC_BASE_URL,
      readiness: {
        mongodb: () => pingMongo(mongo),
        redis: () => pingRedis(redis),
        rabbitmq: () => bus.ping(),
        campaigns: async () => {
          if (!campaigns.isReady()) throw new Error('active campaigns not loaded');
        },
      },
    });
    mountRoutes(app, { counts, totals, unfolded, publishers, campaigns, campaignTraits, tokenSecrets: { current: config.TOKEN_SECRET, previous: config.TOKEN_SECRET_PREVIOUS || null }, publicBaseUrl: config.PUBLIC_BASE_URL, clock, logger }, trackingCounters(metrics));
    finish();

    if (config.COUNT_FOLD_INTERVAL_MS > 0) folder.start();
    const retention = resources.add(new RetentionSweeper({ rules: [totals.hourlyRetentionRule()], clock, logger, intervalMs: RETENTION_SWEEP_MS }), (opened) => opened.stop());
    retention.start();
    const server = resources.add(await listen(app, config.PORT, config.HOST), (opened) => opened.close());
    logger.info({ url: server.url }, 'tracking listening');

    return {
      url: server.url,
      port: server.port,
      folder,
      retention,
      stop: () => resources.closeAll(),
    };
  });
}
