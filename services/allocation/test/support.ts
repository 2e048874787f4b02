import { Bus } from '@pilot/messaging';
import type { CachedCampaign } from '@pilot/campaign-cache';
import { CAMPAIGN_ACTIVATED, CAMPAIGN_PAUSED, createEnvelope, type CampaignActivated, type CampaignPaused } from '@pilot/contracts';
import { parseField, UnfoldedCounts } from '@pilot/counting';
import {
  createLogger,
  createRedis,
  createServiceApp,
  listen,
  signedHeaders,
  waitForRedis,
  type Logger,
  type Redis,
  type RunningServer,
} from '@pilot/platform';
import { generateApiKey, hashApiKey, KeyReadModel, type PlatformType } from '@pilot/publisher-keys';
import { infraEnv, uniqueName, waitFor, type TestInfra } from '@pilot/testkit';
import request from 'supertest';
import { loadConfig } from '../src/config';
import { start, type RunningAllocation, type StartOptions } from '../src/start';

export const logger: Logger = createLogger({ service: 'allocation-test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });
export const PUBLIC_BASE_URL = 'https://pilot.example';

let nextCampaignId = 1;
/** Campaign ids unique within a test run. */
export function campaignId(): number {
  nextCampaignId += 1;
  return nextCampaignId;
}

let nextPublisherId = 1;
export function publisherId(): number {
  nextPublisherId += 1;
  return nextPublisherId;
}

export function activeCampaign(overrides: Partial<CachedCampaign> = {}): CachedCampaign {
  const id = overrides.campaignId ?? campaignId();
  return {
    campaignId: id,
    ownerAccountId: '900000',
    status: 'active',
    format: 'bot',
    language: 'en',
    title: `Campaign ${id}`,
    text: 'A plain-text body',
    buttonText: 'Open',
    imageUrl: `https://cdn.example/${id}.png`,
    destinationUrl: `https://advertiser.example/c/${id}`,
    version: 4,
    ...overrides,
  };
}

/**
 * Stands in for the campaign service's `GET /internal/campaigns/active`: it refuses a call without a
 * valid internal signature exactly like a real service (createServiceApp), and serves `items`.
 */
export interface CampaignSnapshot {
  url: string;
  items: CachedCampaign[];
  served: number;
  close(): Promise<void>;
}

export async function campaignSnapshot(infra: TestInfra, items: CachedCampaign[], port = 0): Promise<CampaignSnapshot> {
  const { app, finish } = createServiceApp({ service: 'campaign-stand-in', publicBaseUrl: PUBLIC_BASE_URL, logger, internalSecret: infra.internalSecret, readiness: {} });
  const snapshot = { items, served: 0 } as CampaignSnapshot;
  app.get('/internal/campaigns/active', (_req, res) => {
    snapshot.served += 1;
    res.json({ items: snapshot.items });
  });
  finish();
  const server: RunningServer = await listen(app, port);
  snapshot.url = server.url;
  snapshot.close = () => server.close(100);
  return snapshot;
}

export async function startAllocation(
  infra: TestInfra,
  campaignUrl: string,
  extraEnv: NodeJS.ProcessEnv = {},
  options: StartOptions = {},
): Promise<RunningAllocation> {
  const config = loadConfig({
    ...infraEnv(infra, 'allocation'),
    CAMPAIGN_URL: campaignUrl,
    PUBLIC_BASE_URL,
    BUS_PUBLISH_TIMEOUT_MS: '500',
    ...extraEnv,
  });
  return start(config, logger, options);
}

export async function untilReady(service: { url: string }): Promise<void> {
  await waitFor(async () => (await fetch(`${service.url}/readyz`)).ok, { timeoutMs: 15_000, message: 'allocation ready' });
}

/** A signed call as the gateway forwards it, with the publisher's Authorization header if given. */
export function getAd(service: { url: string }, infra: TestInfra, query = '', authorization?: string): request.Test {
  const path = `/api/network/ad${query}`;
  const call = request(service.url).get(path).set(signedHeaders(infra.internalSecret, { method: 'GET', url: path }));
  return authorization === undefined ? call : call.set('Authorization', authorization);
}

export function bearer(key: string): string {
  return `Bearer ${key}`;
}

/** The test's own connections: a bus (campaign events in), the read model writer and a reader of the counts. */
export class TestWorld {
  readonly bus: Bus;
  readonly redis: Redis;
  readonly keys: KeyReadModel;
  readonly counts: UnfoldedCounts;

  constructor(readonly infra: TestInfra) {
    this.bus = new Bus({ url: infra.amqpUrl, exchange: infra.exchange, queuePrefix: uniqueName(`${infra.exchange}.probe`), logger });
    this.redis = createRedis(infra.redisUrl, 'allocation-test');
    this.keys = new KeyReadModel(this.redis, infra.redisPrefix);
    this.counts = new UnfoldedCounts(this.redis, infra.redisPrefix, 2000);
  }

  async ready(): Promise<void> {
    await this.bus.ready();
    await waitForRedis(this.redis);
  }

  async close(): Promise<void> {
    await this.bus.close();
    this.redis.disconnect();
  }

  /** Writes a publisher with a current key, as publisher-identity does; returns the key. */
  async publisher(
    id: number,
    ownerAccountId: string,
    options: { status?: string; type?: PlatformType } = {},
  ): Promise<string> {
    const key = generateApiKey();
    await this.keys.writePublisher({ publisherId: id, status: options.status ?? 'approved', ownerAccountId, type: options.type ?? 'bot', keyHash: hashApiKey(key), version: 1, incarnation: 'test' });
    return key;
  }

  async activated(campaign: CachedCampaign): Promise<void> {
    const { version, ...state } = campaign;
    const event: CampaignActivated = createEnvelope(CAMPAIGN_ACTIVATED, String(campaign.campaignId), version, { ...state, status: 'active' });
    await this.bus.publish(event);
  }

  async paused(campaign: CachedCampaign, version: number): Promise<void> {
    const { version: _old, ...state } = campaign;
    const event: CampaignPaused = createEnvelope(CAMPAIGN_PAUSED, String(campaign.campaignId), version, { ...state, status: 'paused' });
    await this.bus.publish(event);
  }

  /** The ad requests counted for a publisher (not folded yet: no folder runs in these tests), by `<day>|adRequests`. */
  /** The publisher's day counts not folded yet (its hour counts, kept beside them, left out). */
  async adRequestsOf(publisher: number): Promise<Map<string, number>> {
    const counted = new Map<string, number>();
    for (const part of (await this.counts.read([`p:${publisher}`])).parts) {
      for (const [field, count] of part.fields) if (parseField(field)) counted.set(field, (counted.get(field) ?? 0) + count);
    }
    return counted;
  }

  async adRequestTotalOf(publisher: number): Promise<number> {
    return [...(await this.adRequestsOf(publisher)).values()].reduce((sum, count) => sum + count, 0);
  }
}
