import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Bus } from '@pilot/messaging';
import type { CachedCampaign } from '@pilot/campaign-cache';
import { CAMPAIGN_ACTIVATED, CAMPAIGN_PAUSED, CAMPAIGN_TRAITS_PATH, createEnvelope, type CampaignActivated, type CampaignPaused } from '@pilot/contracts';
import { CountRecorder, UnfoldedCounts } from '@pilot/counting';
import { createLogger, createRedis, signedHeaders, waitForRedis, type Redis } from '@pilot/platform';
import { generateApiKey, hashApiKey, KeyReadModel } from '@pilot/publisher-keys';
import { infraEnv, ManualClock, signedFor, testInfra, waitFor, type TestInfra } from '@pilot/testkit';
import request from 'supertest';
import { issueToken, newAllocationId, type AllocationClaims } from '@pilot/tokens';
import { loadConfig } from '../src/config';
import { start, type RunningTracking, type StartOptions } from '../src/start';

export const logger = createLogger({ service: 'tracking-test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/**
 * Stands in for the campaign service: its snapshot of active campaigns (tests change `items`) and the
 * language and format of the campaigns it stores (`items` and `stored`), whose calls it keeps in `traitCalls`.
 */
export interface CampaignSnapshot {
  url: string;
  items: CachedCampaign[];
  stored: CachedCampaign[];
  traitCalls: string[];
  /** While true the stand-in answers 503, as a campaign service that is still starting. */
  failing: boolean;
  close(): Promise<void>;
}

export async function campaignSnapshot(items: CachedCampaign[], failing = false): Promise<CampaignSnapshot> {
  const snapshot = { items, failing, stored: [], traitCalls: [] } as unknown as CampaignSnapshot;
  const server: Server = createServer((req, res) => {
    if (req.url === '/internal/campaigns/active' && !snapshot.failing) {
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ items: snapshot.items }));
      return;
    }
    const traits = new URL(req.url ?? '/', 'http://stand-in');
    if (traits.pathname === CAMPAIGN_TRAITS_PATH && !snapshot.failing) {
      const ids = new Set((traits.searchParams.get('ids') ?? '').split(',').map(Number));
      snapshot.traitCalls.push(traits.searchParams.get('ids') ?? '');
      const known = [...snapshot.items, ...snapshot.stored].filter((campaign) => ids.has(campaign.campaignId));
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ items: known.map(({ campaignId, language, format }) => ({ campaignId, language, format })) }));
      return;
    }
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  snapshot.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  snapshot.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return snapshot;
}

export function activeCampaign(campaignId: number, ownerAccountId: string, destinationUrl = `https://advertiser.example/c/${campaignId}`): CachedCampaign {
  return {
    campaignId,
    ownerAccountId,
    status: 'active',
    format: 'bot',
    language: 'en',
    title: `Campaign ${campaignId}`,
    text: 'Body',
    buttonText: 'Open',
    imageUrl: null,
    destinationUrl,
    version: 4,
  };
}

export async function startTracking(infra: TestInfra, campaignUrl: string, options: StartOptions = {}, extraEnv: NodeJS.ProcessEnv = {}): Promise<RunningTracking> {
  const config = loadConfig({ ...infraEnv(infra, 'tracking'), CAMPAIGN_URL: campaignUrl, ...extraEnv });
  return start(config, logger, options);
}

/** The test's own connections: a bus to publish events on, the key read model writer and the ad request counter. */
export class TestWorld {
  readonly bus: Bus;
  readonly redis: Redis;
  readonly keys: KeyReadModel;
  readonly counts: CountRecorder;
  readonly unfolded: UnfoldedCounts;

  constructor(readonly infra: TestInfra) {
    this.bus = new Bus({ url: infra.amqpUrl, exchange: infra.exchange, logger });
    this.redis = createRedis(infra.redisUrl, 'tracking-test');
    this.keys = new KeyReadModel(this.redis, infra.redisPrefix);
    this.counts = new CountRecorder(this.redis, infra.redisPrefix, 2000);
    this.unfolded = new UnfoldedCounts(this.redis, infra.redisPrefix, 2000);
  }

  async ready(): Promise<void> {
    await this.bus.ready();
    await waitForRedis(this.redis);
  }

  async close(): Promise<void> {
    await this.bus.close();
    this.redis.disconnect();
  }

  /** Writes an approved publisher with a current key, as publisher-identity does; returns the key. */
  async approvedPublisher(publisherId: number, ownerAccountId: string): Promise<string> {
    const key = generateApiKey();
    await this.keys.writePublisher({ publisherId, status: 'approved', ownerAccountId, type: 'bot', keyHash: hashApiKey(key), version: 1, incarnation: 'test' });
    return key;
  }

  async pausePublisher(publisherId: number, ownerAccountId: string, key: string): Promise<void> {
    await this.keys.writePublisher({ publisherId, status: 'paused', ownerAccountId, type: 'bot', keyHash: hashApiKey(key), version: 1, incarnation: 'test' });
  }

  /** Counts the ad request of an allocation answered 200, as allocation does (limit and count in one step). */
  async countAllocation(claims: AllocationClaims): Promise<void> {
    const counted = await this.counts.countAdRequest(
      claims.publisherId,
      { points: 1_000_000, windowSeconds: 60 },
      {
        allocationId: claims.allocationId,
        campaignId: claims.campaignId,
        publisherId: claims.publisherId,
        campaignOwnerAccountId: claims.campaignOwnerAccountId,
        publisherOwnerAccountId: claims.publisherOwnerAccountId,
        allocatedAt: claims.issuedAt,
      },
      claims.issuedAt,
    );
    if (!counted.counted) throw new Error('ad request not counted');
  }


  async publishCampaignActivated(campaign: CachedCampaign): Promise<void> {
    const { version, ...state } = campaign;
    const event: CampaignActivated = createEnvelope(CAMPAIGN_ACTIVATED, String(campaign.campaignId), version, state);
    await this.bus.publish(event);
  }

  async publishCampaignPaused(campaign: CachedCampaign): Promise<void> {
    const { version, ...state } = campaign;
    const event: CampaignPaused = createEnvelope(CAMPAIGN_PAUSED, String(campaign.campaignId), version + 1, { ...state, status: 'paused' });
    await this.bus.publish(event);
  }
}

export interface Allocation {
  claims: AllocationClaims;
  deliveryToken: string;
  clickToken: string;
  clickPath: string;
}

export function allocate(
  infra: TestInfra,
  at: Date | ManualClock,
  ids: { campaignId: number; publisherId: number; campaignOwner: string; publisherOwner: string },
): Allocation {
  const claims: AllocationClaims = {
    allocationId: newAllocationId(),
    campaignId: ids.campaignId,
    publisherId: ids.publisherId,
    campaignOwnerAccountId: ids.campaignOwner,
    publisherOwnerAccountId: ids.publisherOwner,
    issuedAt: new Date(Math.floor((at instanceof Date ? at : at.now()).getTime() / 1000) * 1000),
  };
  const clickToken = issueToken(infra.tokenSecret, 'click', claims);
  return { claims, deliveryToken: issueToken(infra.tokenSecret, 'delivery', claims), clickToken, clickPath: `/api/network/click/${clickToken}` };
}

/** Headers the gateway adds when it forwards a call (no account: the network API and click links). */
export function gatewaySigned(infra: TestInfra, method: string, url: string, account?: { accountId: string; admin?: boolean }): Record<string, string> {
  return signedHeaders(infra.internalSecret, { method, url, accountId: account?.accountId ?? null, admin: account?.admin ?? false });
}

/** A POST to tracking signed as the gateway signs it, the body's digest included once `.send(...)` gives it. */
export function signedPost(infra: TestInfra, baseUrl: string, path: string) {
  return signedFor(request(baseUrl).post(path), 'POST', path, { accountId: null, admin: false }, (call) => signedHeaders(infra.internalSecret, call));
}

type Account = { accountId: string; admin?: boolean };

/**
 * The set-up of the figures' tests (stats by the hour, breakdown, report): tracking with its folder
 * stopped (a test folds with `tracking.folder.foldNow`), a stand-in campaign service, a manual clock, and
 * the test's counting connections. `owners` names the account of each campaign and platform id counted.
 * Create it in a `describe`; call `start` in `before` and `close` in `after`.
 */
export class CountedFigures {
  readonly infra = testInfra();
  readonly clock = new ManualClock();
  readonly world = new TestWorld(this.infra);
  snapshot!: CampaignSnapshot;
  tracking!: RunningTracking;

  constructor(private readonly owners: Record<number, string>) {}

  /** Starts tracking with these campaigns active. */
  async start(campaigns: CachedCampaign[]): Promise<void> {
    await this.world.ready();
    this.snapshot = await campaignSnapshot(campaigns);
    this.tracking = await startTracking(this.infra, this.snapshot.url, { clock: this.clock }, { COUNT_FOLD_INTERVAL_MS: '0' });
    await waitFor(async () => (await fetch(`${this.tracking.url}/readyz`)).ok, { message: 'tracking ready' });
  }

  async close(): Promise<void> {
    await this.tracking?.stop();
    await this.snapshot?.close();
    await this.world.close();
  }

  /** Counts `times` ad requests of campaign c on platform p allocated at `at`; the first allocation's claims. */
  async adRequests(at: string, c: number, p: number, times: number): Promise<AllocationClaims> {
    this.clock.set(at);
    const made = Array.from({ length: times }, () => allocate(this.infra, this.clock, { campaignId: c, publisherId: p, campaignOwner: this.owners[c]!, publisherOwner: this.owners[p]! }));
    for (const allocation of made) await this.world.countAllocation(allocation.claims);
    return made[0]!.claims;
  }

  /** Counts facts of an allocation once each (a confirmed delivery, a click), at the clock's time; whether each was counted. */
  async countOnce(claims: AllocationClaims, kinds: Array<'confirmedDeliveries' | 'clickedLinks'>): Promise<boolean[]> {
    const counted = { campaignId: claims.campaignId, publisherId: claims.publisherId, campaignOwnerAccountId: claims.campaignOwnerAccountId, publisherOwnerAccountId: claims.publisherOwnerAccountId, allocatedAt: claims.issuedAt };
    const results: boolean[] = [];
    for (const kind of kinds) results.push(await this.world.counts.countOnce(kind, claims.allocationId, counted, this.clock.now()));
    return results;
  }

  /** Counts an ad request of platform p answered 204 (no campaign), at the clock's time. */
  async unfilled(p: number, requestId: string): Promise<void> {
    await this.world.counts.countAdRequest(p, { points: 1000, windowSeconds: 60 }, { unfilled: true, requestId, publisherId: p, publisherOwnerAccountId: this.owners[p]!, requestedAt: this.clock.now() }, this.clock.now());
  }

  /** A GET of tracking's, signed by the gateway for the account (none: not signed in). */
  get(path: string, account?: Account) {
    return request(this.tracking.url).get(path).set(gatewaySigned(this.infra, 'GET', path, account));
  }
}
