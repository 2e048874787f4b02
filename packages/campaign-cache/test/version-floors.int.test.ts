import { Bus } from '@pilot/messaging';
import {
  CAMPAIGN_ACTIVATED,
  CAMPAIGN_PAUSED,
  createEnvelope,
  type CampaignEvent,
  type CampaignState,
} from '@pilot/contracts';
import { createLogger } from '@pilot/platform';
import { TcpRelay, testInfra, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { ActiveCampaignCache, type CachedCampaign } from '../src';

const logger = createLogger({ service: 'campaign-cache-test', level: 'silent' });

function state(campaignId: number, status: CampaignState['status']): CampaignState {
  return {
    campaignId,
    ownerAccountId: '5100',
    status,
    format: 'bot',
    language: 'en',
    title: 'Title',
    text: 'Text',
    buttonText: 'Open',
    imageUrl: 'https://example.com/a.png',
    destinationUrl: 'https://example.com/',
  } as CampaignState;
}

function event(type: typeof CAMPAIGN_ACTIVATED | typeof CAMPAIGN_PAUSED, campaignId: number, version: number): CampaignEvent {
  const status = type === CAMPAIGN_ACTIVATED ? 'active' : 'paused';
  return createEnvelope(type, String(campaignId), version, state(campaignId, status)) as CampaignEvent;
}

describe('campaign cache: version floors across rebuilds (real RabbitMQ)', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    while (cleanup.length > 0) await cleanup.pop()?.();
  });

  async function bus(url: string): Promise<Bus> {
    const created = new Bus({ url, exchange: infra.exchange, logger, publishTimeoutMs: 5000 });
    cleanup.push(() => created.close());
    await created.ready();
    return created;
  }

  const infra = testInfra();

  it('ignores a republished older activation of a campaign paused before a reconnect whose snapshot no longer lists it', async () => {
    const link = new TcpRelay(infra.amqpUrl);
    await link.open();
    cleanup.push(() => link.cut());
    const publisher = await bus(infra.amqpUrl);
    const consumer = await bus(link.url);

    const paused = 71;
    const marker = 72;
    // What the campaign service answers: active campaigns, and paused ones for their versions.
    let snapshot: CachedCampaign[] = [{ ...state(paused, 'active'), version: 3 }];
    let rebuilds = 0;
    const cache = new ActiveCampaignCache({
      bus: consumer,
      logger,
      loadSnapshot: async () => {
        rebuilds += 1;
        return snapshot;
      },
    });
    await cache.start();
    expect(cache.get(paused)).to.include({ version: 3 });

    await publisher.publish(event(CAMPAIGN_PAUSED, paused, 4));
    await waitFor(() => cache.get(paused) === undefined, { message: 'the pause is applied' });

    // A snapshot that lists active campaigns only, as before the fix, then a reconnect.
    snapshot = [];
    await link.cut();
    await waitFor(() => !cache.isReady(), { message: 'the cache notices the broker is gone' });
    await link.open();
    await waitFor(() => cache.isReady() && rebuilds === 2, { timeoutMs: 20_000, message: 'the cache rebuilds after the reconnect' });

    // The outbox republishes the activation that preceded the pause; the marker after it shows it was consumed.
    await publisher.publish(event(CAMPAIGN_ACTIVATED, paused, 3));
    await publisher.publish(event(CAMPAIGN_ACTIVATED, marker, 1));
    await waitFor(() => cache.get(marker) !== undefined, { message: 'the marker arrives' });
    expect(cache.get(paused), 'the paused campaign is selectable again').to.equal(undefined);
  });

  it('takes version floors from paused campaigns of the snapshot on its first build', async () => {
    const publisher = await bus(infra.amqpUrl);
    const consumer = await bus(infra.amqpUrl);
    const paused = 81;
    const marker = 82;
    const cache = new ActiveCampaignCache({
      bus: consumer,
      logger,
      loadSnapshot: async () => [{ ...state(paused, 'paused'), version: 4 }],
    });
    await cache.start();
    expect(cache.size()).to.equal(0);

    await publisher.publish(event(CAMPAIGN_ACTIVATED, paused, 3));
    await publisher.publish(event(CAMPAIGN_ACTIVATED, marker, 1));
    await waitFor(() => cache.get(marker) !== undefined, { message: 'the marker arrives' });
    expect(cache.get(paused), 'the paused campaign is selectable again').to.equal(undefined);

    await publisher.publish(event(CAMPAIGN_ACTIVATED, paused, 5));
    await waitFor(() => cache.get(paused) !== undefined, { message: 'a newer activation still applies' });
  });
});
