/**
 * The campaign service: config -> MongoDB -> bus -> repository -> use cases -> routes -> outbox relay ->
 * listen. stop() undoes it in reverse: server, relay, bus, MongoDB.
 * It consumes no events; it publishes campaign.submitted, campaign.approved, campaign.rejected,
 * campaign.activated and campaign.paused through its outbox (domain/campaign.ts TRANSITIONS).
 */
import { systemClock, type Clock, listen, Resources, createMetricsRegistry, registerOutboxBacklog, createServiceApp, type Logger } from '@pilot/platform';
import { Bus, OutboxRelay } from '@pilot/messaging';
import { connectMongo, pingMongo } from '@pilot/storage';
import type { Config } from './config';
import { CampaignRepository } from './data/campaign-repository';
import { mountRoutes } from './http/routes';
import type { CampaignDeps } from './use-cases/deps';

export interface StartOptions {
  clock?: Clock;
  /** false publishes nothing: changes stay pending in the outbox (tests of a crash between the write and the publish). */
  relay?: boolean;
}

export interface RunningCampaignService {
  url: string;
  port: number;
  relay: OutboxRelay;
  stop(): Promise<void>;
}

export async function start(config: Config, logger: Logger, options: StartOptions = {}): Promise<RunningCampaignService> {
  const clock = options.clock ?? systemClock;
  const resources = new Resources();
  const metrics = createMetricsRegistry('campaign');
  return resources.openOrClose(async () => {
    const mongo = resources.add(await connectMongo({ url: config.MONGO_URL, dbName: config.MONGO_DB, registry: metrics }), (opened) => opened.close());
    const bus = resources.add(Bus.fromSettings(config, logger, metrics), (opened) => opened.close());
    await bus.ready();

    const repository = new CampaignRepository(mongo, { publish: options.relay === false ? undefined : (events) => bus.publishAll(events) });
    // Changes answered before their finish end before the bus and the database close.
    resources.add(repository, (opened) => opened.settled());
    await repository.ensureIndexes();
    // The relay judges how long a change has been pending by the clock the changes were made with.
    const relay = OutboxRelay.forSource(bus, repository, config, logger, clock, metrics);
    registerOutboxBacklog(metrics, () => repository.outboxQueues());
    resources.add(relay, (opened) => opened.stop());
    const deps: CampaignDeps = { repository, clock, logger };

    const { app, finish } = createServiceApp({
      service: 'campaign',
      registry: metrics,
      logger,
      internalSecret: config.INTERNAL_SECRET,
      publicBaseUrl: config.PUBLIC_BASE_URL,
      readiness: { mongodb: () => pingMongo(mongo), rabbitmq: () => bus.ping() },
    });
    mountRoutes(app, deps);
    finish();

    if (options.relay !== false) relay.start();
    const server = resources.add(await listen(app, config.PORT, config.HOST), (opened) => opened.close());
    logger.info({ url: server.url }, 'campaign listening');

    return {
      url: server.url,
      port: server.port,
      relay,
      stop: () => resources.closeAll(),
    };
  });
}
