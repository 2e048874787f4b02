/**
 * The whole system in this test process: every service (with as many replicas as asked) on real
 * RabbitMQ, Redis and FerretDB under names unique to the run, behind a real gateway. Tests talk to it only
 * through the gateway, as a publisher server or a browser would.
 */
import { createLogger, type Logger } from '@pilot/platform';
import { reservedPort, infraEnv, type ManualClock, testInfra, waitFor, type TestInfra } from '@pilot/testkit';
import { loadConfig as allocationConfig } from '../../../services/allocation/src/config';
import { start as startAllocation } from '../../../services/allocation/src/start';
import { loadConfig as campaignConfig } from '../../../services/campaign/src/config';
import { start as startCampaign } from '../../../services/campaign/src/start';
import { loadConfig as gatewayConfig } from '../../../services/gateway/src/config';
import { start as startGateway } from '../../../services/gateway/src/start';
import { loadConfig as placementConfig } from '../../../services/placement/src/config';
import { start as startPlacement } from '../../../services/placement/src/start';
import { loadConfig as notificationConfig } from '../../../services/notification/src/config';
import { start as startNotification } from '../../../services/notification/src/start';
import { loadConfig as identityConfig } from '../../../services/publisher-identity/src/config';
import { start as startIdentity } from '../../../services/publisher-identity/src/start';
import { loadConfig as trackingConfig } from '../../../services/tracking/src/config';
import { start as startTracking } from '../../../services/tracking/src/start';
import { loadConfig as webConfig } from '../../../services/web/src/config';
import { start as startWeb } from '../../../services/web/src/start';

export const WEBHOOK_SECRET = 'e2e-webhook-secret-0123456789abcdef';
export const ADMIN_ID = '1000';

export type ServiceName = 'publisher-identity' | 'campaign' | 'allocation' | 'tracking' | 'placement' | 'notification' | 'web';

export interface Running {
  url: string;
  stop(): Promise<void>;
}

export interface Replica {
  service: ServiceName;
  index: number;
  running: Running | null;
  /** Stops this replica (as SIGTERM would) and starts it again on the same settings and a new port. */
  restart(): Promise<void>;
}

export interface SystemOptions {
  replicas?: Partial<Record<ServiceName, number>>;
  /** Extra settings per service (e.g. a lower rate limit window). */
  settings?: Partial<Record<ServiceName | 'gateway', Record<string, string>>>;
  clock?: ManualClock;
  /** Where every service's JSON log lines go (tests that read the logs), and at which level. */
  logSink?: { write(line: string): void };
  logLevel?: string;
  /**
   * Replicas running elsewhere (e.g. child processes a test starts with `envFor`): their URLs are added to
   * the gateway's upstream list of that service. Use with `replicas: { <service>: 0 }` for only those.
   */
  external?: Partial<Record<ServiceName, string[]>>;
  /** Another run's Redis key prefix: a system on fresh databases meeting what an earlier one left in Redis. */
  redisPrefix?: string;
}

export interface System {
  baseUrl: string;
  origin: string;
  /** The gateway's operator port: its /metrics and the readiness of every upstream replica. */
  operatorUrl: string;
  infra: TestInfra;
  replicas: Replica[];
  replicasOf(service: ServiceName): Replica[];
  /** The environment a replica of `service` listening on `port` gets in this system (for child processes). */
  envFor(service: ServiceName, port: number | string): NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

type Starter = (env: NodeJS.ProcessEnv, logger: Logger, clock: ManualClock | undefined) => Promise<Running>;

const STARTERS: Record<ServiceName, Starter> = {
  'publisher-identity': (env, logger, clock) => startIdentity(identityConfig(env), logger, clock ? { clock } : {}),
  campaign: (env, logger, clock) => startCampaign(campaignConfig(env), logger, clock ? { clock } : {}),
  allocation: (env, logger, clock) => startAllocation(allocationConfig(env), logger, clock ? { clock } : {}),
  tracking: (env, logger, clock) => startTracking(trackingConfig(env), logger, clock ? { clock } : {}),
  placement: (env, logger, clock) => startPlacement(placementConfig(env), logger, clock ? { clock } : {}),
  notification: (env, logger, clock) => startNotification(notificationConfig(env), logger, clock ? { clock } : {}),
  web: (env, logger) => startWeb(webConfig(env), logger),
};

/** Services that others need at start come first: allocation and tracking load campaign's snapshot. */
const START_ORDER: ServiceName[] = ['publisher-identity', 'campaign', 'placement', 'allocation', 'tracking', 'notification', 'web'];

/** Replicas listen on ports chosen once, so the gateway's upstream list stays true across restarts. */
async function portFor(): Promise<string> {
  return String(await reservedPort());
}

export async function startSystem(options: SystemOptions = {}): Promise<System> {
  const infra = { ...testInfra(), ...(options.redisPrefix ? { redisPrefix: options.redisPrefix } : {}) };
  const logger = createLogger({
    service: 'e2e',
    level: options.logLevel ?? process.env.TEST_LOG_LEVEL ?? 'silent',
    destination: options.logSink,
  });
  const gatewayPort = await portFor();
  const baseUrl = `http://127.0.0.1:${gatewayPort}`;
  const replicas: Replica[] = [];

  let campaignUrl = options.external?.campaign?.[0] ?? 'http://127.0.0.1:1';
  let identityUrl = options.external?.['publisher-identity']?.[0] ?? 'http://127.0.0.1:1';
  const envFor = (service: ServiceName, port: number | string): NodeJS.ProcessEnv => ({
    ...infraEnv(infra, service),
    PORT: String(port),
    PUBLIC_BASE_URL: baseUrl,
    ADMIN_ACCOUNT_IDS: ADMIN_ID,
    TELEGRAM_WEBHOOK_SECRET: WEBHOOK_SECRET,
    CAMPAIGN_URL: campaignUrl,
    IDENTITY_URL: identityUrl,
    // Tests generate keys far faster than people do; the limit has its own test.
    KEY_ROTATION_LIMIT_POINTS: '100000',
    ...(options.settings?.[service] ?? {}),
  });
  for (const service of START_ORDER) {
    const count = options.replicas?.[service] ?? 1;
    for (let index = 0; index < count; index += 1) {
      const port = await portFor();
      const env = (): NodeJS.ProcessEnv => envFor(service, port);
      const replica: Replica = {
        service,
        index,
        running: null,
        async restart() {
          if (replica.running) await replica.running.stop();
          replica.running = null;
          replica.running = await STARTERS[service](env(), logger.child({ service, replica: index }), options.clock);
        },
      };
      replica.running = await STARTERS[service](env(), logger.child({ service, replica: index }), options.clock);
      replicas.push(replica);
    }
    if (service === 'campaign') campaignUrl = replicas.find((r) => r.service === 'campaign')?.running?.url ?? campaignUrl;
    if (service === 'publisher-identity') identityUrl = replicas.find((r) => r.service === 'publisher-identity')?.running?.url ?? identityUrl;
  }

  const urlsOf = (service: ServiceName) =>
    [
      ...replicas.filter((r) => r.service === service).map((r) => r.running?.url),
      ...(options.external?.[service] ?? []),
    ].join(',');
  const gateway = await startGateway(
    gatewayConfig({
      NODE_ENV: 'test',
      GATEWAY_PORT: gatewayPort,
      INTERNAL_SECRET: infra.internalSecret,
      PUBLIC_BASE_URL: baseUrl,
      IDENTITY_URLS: urlsOf('publisher-identity'),
      CAMPAIGN_URLS: urlsOf('campaign'),
      ALLOCATION_URLS: urlsOf('allocation'),
      TRACKING_URLS: urlsOf('tracking'),
      PLACEMENT_URLS: urlsOf('placement'),
      NOTIFICATION_URLS: urlsOf('notification'),
      WEB_URLS: urlsOf('web'),
      UPSTREAM_TIMEOUT_MS: '10000',
      REDIS_URL: infra.redisUrl,
      REDIS_KEY_PREFIX: infra.redisPrefix,
      // A scenario's administrator changes records far faster than a person; the limit has its own tests.
      WORKSPACE_WRITE_LIMIT_POINTS: '100000',
      ...(options.settings?.gateway ?? {}),
    }),
    logger.child({ service: 'gateway' }),
    options.clock ? { clock: options.clock } : {},
  );

  // Ready when every replica of every service says so (caches loaded, connections up).
  const notReady: string[] = [];
  await waitFor(
    async () => {
      notReady.length = 0;
      await Promise.all(
        replicas.map(async (r) => {
          const answer = r.running ? await fetch(`${r.running.url}/readyz`) : null;
          if (!answer?.ok) notReady.push(`${r.service}#${r.index}: ${answer ? await answer.text() : 'not running'}`);
        }),
      );
      return notReady.length === 0;
    },
    { timeoutMs: 30_000, message: 'every service ready' },
  ).catch((error: Error) => {
    throw new Error(`${error.message}; not ready: ${notReady.join('; ')}`);
  });

  return {
    baseUrl,
    origin: new URL(baseUrl).origin,
    operatorUrl: gateway.operatorUrl,
    infra,
    replicas,
    replicasOf: (service) => replicas.filter((r) => r.service === service),
    envFor,
    async stop() {
      await gateway.stop();
      for (const replica of [...replicas].reverse()) {
        if (replica.running) await replica.running.stop();
        replica.running = null;
      }
    },
  };
}
