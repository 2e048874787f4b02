import { Bus } from '@pilot/messaging';
import { CAMPAIGN_ACTIVATED, CAMPAIGN_APPROVED, CAMPAIGN_PAUSED, CAMPAIGN_REJECTED, CAMPAIGN_SUBMITTED, type KnownEvent } from '@pilot/contracts';
import { signedHeaders, createLogger } from '@pilot/platform';
import { infraEnv, signedFor, type TestInfra } from '@pilot/testkit';
import request from 'supertest';
import { loadConfig } from '../src/config';
import { start, type RunningCampaignService, type StartOptions } from '../src/start';

export const logger = createLogger({ service: 'campaign-test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });

export interface Who {
  accountId: string;
  admin?: boolean;
}

export const OWNER: Who = { accountId: '1001' };
export const OTHER: Who = { accountId: '1002' };
export const ADMIN: Who = { accountId: '9001', admin: true };

export const CREATIVE = {
  name: 'Spring tea',
  format: 'bot',
  title: 'Fresh green tea',
  text: 'Hand picked.\nShipped in a day.',
  destinationUrl: 'https://tea.example.com/spring?utm=pilot',
  buttonText: 'Open the shop',
  imageUrl: 'https://cdn.example.com/tea.png',
  language: 'en',
};

export async function startCampaign(infra: TestInfra, options: StartOptions = {}, env: Record<string, string> = {}): Promise<RunningCampaignService> {
  return start(loadConfig({ ...infraEnv(infra, 'campaign'), OUTBOX_RELAY_INTERVAL_MS: '200', ...env }), logger, options);
}

/** A client that calls the service as the gateway would, signed for `who` (or anonymous). */
export function client(infra: TestInfra, baseUrl: string) {
  const call = (method: 'get' | 'post', path: string, who: Who | null, body?: unknown) => {
    const signedAs = { accountId: who?.accountId ?? null, admin: who?.admin ?? false };
    const pending = signedFor(request(baseUrl)[method](path), method, path, signedAs, (call) => signedHeaders(infra.internalSecret, call));
    return body === undefined ? pending : pending.send(body as object);
  };
  return {
    get: (path: string, who: Who | null) => call('get', path, who),
    post: (path: string, who: Who | null, body?: unknown) => call('post', path, who, body),
  };
}

export const CAMPAIGN_EVENTS = [CAMPAIGN_SUBMITTED, CAMPAIGN_APPROVED, CAMPAIGN_ACTIVATED, CAMPAIGN_PAUSED, CAMPAIGN_REJECTED] as const;

/** Listens on the run's exchange like a campaign cache replica does, recording every campaign event. */
export async function listen(infra: TestInfra): Promise<{ events: KnownEvent[]; bus: Bus }> {
  const bus = new Bus({ url: infra.amqpUrl, exchange: infra.exchange, logger });
  await bus.ready();
  const events: KnownEvent[] = [];
  await bus.subscribeBroadcast({ eventTypes: CAMPAIGN_EVENTS, handler: async (event) => void events.push(event) });
  return { events, bus };
}
