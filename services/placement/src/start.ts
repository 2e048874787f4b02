/**
 * The placement service: config -> MongoDB -> Redis -> bus -> repositories -> routes
 * -> outbox relay -> listen. stop() undoes it in reverse.
 * It publishes placement.changed through its outbox (use-cases/set-placement.ts), and every replica hears
 * them on a queue of its own to read a changed slot again (data/showing-slots.ts).
 */
import { Bus, OutboxRelay } from '@pilot/messaging';
import {
  checkEvictionPolicy,
  createMetricsRegistry,
  createRedis,
  createServiceApp,
  listen,
  pingRedis,
  RedisLimiter,
  registerCountingLag,
  registerOutboxBacklog,
  Resources,
  systemClock,
  waitForRedis,
  type Clock,
  type Logger,
  redisTargetOf,
} from '@pilot/platform';
import { CountJournal, CountRecorder, UnfoldedCounts } from '@pilot/counting';
import { COUNT_FOLDING, CountFolder, TotalsStore } from '@pilot/counting/totals';
import { connectMongo, pingMongo } from '@pilot/storage';
import { PLACEMENT_CHANGED } from '@pilot/contracts';
import type { Config } from './config';
import { ImpressionRepository } from './data/impression-repository';
import { ShowingSlots } from './data/showing-slots';
import { PlacementRepository } from './data/placement-repository';
import { mountRoutes } from './http/routes';
import type { PlacementDeps } from './use-cases/deps';

export interface StartOptions {
  /** The only source of time (tests pass a ManualClock). */
  clock?: Clock;
  /** How long a slot read from the store is shown without an event (data/showing-slots.ts; tests lengthen it). */
  showingMaxAgeMs?: number;
}

export interface RunningPlacement {
  url: string;
  port: number;
  /** Moves impression counts into MongoDB now (what the folder does every COUNT_FOLD_INTERVAL_MS). */
  folder: CountFolder;
  /** Publishes every pending outbox event now (tests, shutdown). */
  relay: OutboxRelay;
  stop(): Promise<void>;
}

export async function start(config: Config, logger: Logger, options: StartOptions = {}): Promise<RunningPlacement> {
  const clock = options.clock ?? systemClock;

  const resources = new Resources();
  const metrics = createMetricsRegistry('placement');
  return resources.openOrClose(async () => {
    const mongo = resources.add(await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB, registry: metrics }), (opened) => opened.close());
    const redis = resources.add(createRedis(redisTargetOf(config), 'placement'), (opened) => opened.disconnect());
    const bus = resources.add(Bus.fromSettings(config, logger, metrics), (opened) => opened.close());
    await waitForRedis(redis);
    await checkEvictionPolicy(redis, { production: config.isProduction, logger });
    await bus.ready();

    const placements = new PlacementRepository(mongo, { publish: (events) => bus.publishAll(events) });
    // Changes answered before their finish end before the bus and the database close.
    resources.add(placements, (opened) => opened.settled());
    await placements.ensureIndexes();
    // Impressions are counted in this service's own Redis namespace.
    const countPrefix = `${config.REDIS_KEY_PREFIX}placement:`;
    const totals = new TotalsStore(mongo, config.DEPENDENCY_TIMEOUT_MS);
    await totals.ensureIndexes();
    const journal = new CountJournal(redis, countPrefix);
    registerCountingLag(metrics, journal);
    const folder = resources.add(
      new CountFolder({ journal, totals, clock, logger, tickMs: config.COUNT_FOLD_INTERVAL_MS, ...COUNT_FOLDING }),
      (opened) => opened.stop(),
    );
    const impressions = new ImpressionRepository(
      new CountRecorder(redis, countPrefix, config.DEPENDENCY_TIMEOUT_MS, config.COUNT_INTERVAL_MS),
      new UnfoldedCounts(redis, countPrefix, config.DEPENDENCY_TIMEOUT_MS),
      totals,
    );
    const relay = OutboxRelay.forSource(bus, placements, config, logger, clock, metrics);
    registerOutboxBacklog(metrics, () => placements.outboxQueues());
    resources.add(relay, (opened) => opened.stop());
    const limiter = new RedisLimiter(redis, {
      keyPrefix: `${config.REDIS_KEY_PREFIX}placement:impressions`,
      points: config.IMPRESSION_LIMIT_POINTS,
      windowSeconds: config.IMPRESSION_LIMIT_WINDOW_SECONDS,
    });
    const showing = new ShowingSlots(placements, options.showingMaxAgeMs);
    await bus.subscribeBroadcast({
      eventTypes: [PLACEMENT_CHANGED],
      beforeConsume: async () => showing.forgetAll(),
      handler: async (event) => {
        if (event.type === PLACEMENT_CHANGED) showing.forget(event.data.slot);
      },
    });
    const deps: PlacementDeps = { placements, showing, impressions, clock, impressionLimit: limiter };
    const { app, finish } = createServiceApp({
      service: 'placement',
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

    relay.start();

    const server = resources.add(await listen(app, config.PORT, config.HOST), (opened) => opened.close());
    logger.info({ url: server.url }, 'placement listening');

    return {
      url: server.url,
      port: server.port,
      folder,
      relay,
      stop: () => resources.closeAll(),
    };
  });
}
