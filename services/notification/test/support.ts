import { Bus } from '@pilot/messaging';
import { createEnvelope, type CampaignEvent, type KnownEvent, type PublisherEvent } from '@pilot/contracts';
import { signedHeaders, createLogger } from '@pilot/platform';
import { infraEnv, signedFor, startBotApiStandIn, testInfra, type BotApiStandIn, type TestInfra } from '@pilot/testkit';
import request from 'supertest';
import { loadConfig } from '../src/config';
import { start, type RunningNotification, type StartOptions } from '../src/start';

export const ADMIN_ID = '1000';
export const BOT_TOKEN = '123456:stand-in-token-abcdef';
export const SITE = 'https://pilot.example';

export interface Harness {
  infra: TestInfra;
  bot: BotApiStandIn;
  /** Every JSON log line of the service and its replicas. */
  logs: string[];
  service: RunningNotification;
  /** The campaign and publisher services' side of the bus: publishes as they do. */
  publish(event: KnownEvent): Promise<void>;
  /** Another replica on the same infrastructure (stopped with the harness). */
  startReplica(extra?: Record<string, string>): Promise<RunningNotification>;
  settings(method: 'get' | 'put', accountId: string, body?: unknown): request.Test;
  stop(): Promise<void>;
}

/** Settings that make the faults quick to see: a short send timeout and lease, short pauses between attempts. */
export const QUICK = { BOT_API_TIMEOUT_MS: '400', NOTIFICATION_LEASE_MS: '1500' };
const QUICK_PAUSES = { retryPausesMs: [50, 100, 200] };

export function envOf(infra: TestInfra, bot: BotApiStandIn, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...infraEnv(infra, 'notification'),
    PUBLIC_BASE_URL: SITE,
    ADMIN_ACCOUNT_IDS: ADMIN_ID,
    IDENTITY_URL: 'http://127.0.0.1:1',
    TELEGRAM_BOT_TOKEN: BOT_TOKEN,
    TELEGRAM_API_BASE_URL: bot.baseUrl,
    ...QUICK,
    ...extra,
  };
}

export async function startHarness(extra: Record<string, string> = {}, options: StartOptions = {}): Promise<Harness> {
  const infra = testInfra();
  const bot = await startBotApiStandIn();
  const logs: string[] = [];
  const logger = createLogger({ service: 'notification-test', level: 'info', destination: { write: (line: string) => void logs.push(line) } });
  const producer = new Bus({ url: infra.amqpUrl, exchange: infra.exchange, logger });
  await producer.ready();
  const service = await start(loadConfig(envOf(infra, bot, extra)), logger, { ...QUICK_PAUSES, ...options });
  const replicas: RunningNotification[] = [];
  return {
    infra,
    bot,
    logs,
    service,
    publish: (event) => producer.publish(event),
    async startReplica(more = {}) {
      const replica = await start(loadConfig(envOf(infra, bot, { ...extra, ...more })), logger.child({ replica: replicas.length + 2 }), { ...QUICK_PAUSES, ...options });
      replicas.push(replica);
      return replica;
    },
    settings(method, accountId, body) {
      const path = '/api/workspace/notifications';
      const call = signedFor(request(service.url)[method](path), method, path, { accountId, admin: accountId === ADMIN_ID }, (signed) => signedHeaders(infra.internalSecret, signed));
      return body === undefined ? call : call.send(body as object);
    },
    async stop() {
      for (const replica of replicas) await replica.stop();
      await service.stop();
      await producer.close();
      await bot.stop();
    },
  };
}

let nextId = 1;

export interface CampaignChange {
  campaignId?: number;
  owner: string;
  actor?: string;
  reason?: string | null;
  name?: string;
}

const CAMPAIGN_STATUS_AFTER = {
  'campaign.submitted': 'submitted',
  'campaign.approved': 'approved',
  'campaign.rejected': 'rejected',
  'campaign.activated': 'active',
  'campaign.paused': 'paused',
} as const;

/** A campaign event as the campaign service writes it (`actor` defaults to the administrator). */
export function campaignEvent(type: CampaignEvent['type'], change: CampaignChange, version = 2, occurredAt?: Date): CampaignEvent {
  const campaignId = change.campaignId ?? (nextId += 1);
  return createEnvelope(type, String(campaignId), version, {
    campaignId,
    ownerAccountId: change.owner,
    status: CAMPAIGN_STATUS_AFTER[type],
    format: 'bot',
    language: 'en',
    title: 'A title',
    text: 'Some text',
    buttonText: 'Open',
    imageUrl: null,
    destinationUrl: 'https://example.com/landing',
    name: change.name ?? `Campaign ${campaignId}`,
    actorAccountId: change.actor ?? ADMIN_ID,
    reason: change.reason ?? null,
  }, occurredAt) as CampaignEvent;
}

const PUBLISHER_STATUS_AFTER = {
  'publisher.submitted': 'submitted',
  'publisher.approved': 'approved',
  'publisher.rejected': 'rejected',
  'publisher.paused': 'paused',
} as const;

export function publisherEvent(type: keyof typeof PUBLISHER_STATUS_AFTER, change: { owner: string; actor?: string; reason?: string | null; publisherId?: number }, version = 2): PublisherEvent {
  const publisherId = change.publisherId ?? (nextId += 1);
  return createEnvelope(type, String(publisherId), version, {
    publisherId,
    ownerAccountId: change.owner,
    status: PUBLISHER_STATUS_AFTER[type],
    type: 'bot',
    link: `https://t.me/platform_${publisherId}_bot`,
    keyCreatedAt: null,
    actorAccountId: change.actor ?? ADMIN_ID,
    reason: change.reason ?? null,
  }) as PublisherEvent;
}
