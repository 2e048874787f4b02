/**
 * @pilot/network-client against the running system (through the gateway): its generated types and the
 * schemas it validates answers with match the served OpenAPI document, and every answer of the ad and
 * delivery endpoints comes out as documented.
 * Then against local servers for what the system does not produce on demand: a 503 with Retry-After and
 * a confirmation that never gets an answer.
 */
import { readFile } from 'node:fs/promises';
import { waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { GENERATED_FILE, renderSchemas, renderTypes, SCHEMAS_FILE } from '../../clients/network/scripts/generate';
import {
  DeliveryOutcomeUnknownError,
  isAd,
  NetworkApiError,
  NetworkClient,
  RateLimitedError,
  ServiceUnavailableError,
  UnauthorizedError,
  type Ad,
  type RetryEvent,
} from '../../clients/network/src';
import { countKeys } from '../../packages/counting/src';
import { createRedis, waitForRedis, type Redis } from '../../packages/platform/src';
import { signedIn, type Browser } from '../e2e/support/clients';
import { activeCampaign, approvedPublisher, type Campaign } from '../e2e/support/scenario';
import { ADMIN_ID, startSystem, type System } from '../e2e/support/system';
import { localServer } from './support/local-server';

interface Totals {
  adRequests: number;
  confirmedDeliveries: number;
}

describe('publisher network client against the running system', function () {
  this.timeout(180_000);
  let system: System;
  let admin: Browser;
  let advertiser: Browser;
  let owner: Browser;
  let campaign: Campaign;
  let key: string;
  let served: Ad | null = null;
  let redis: Redis;

  const clientWith = (apiKey: string, options: Partial<ConstructorParameters<typeof NetworkClient>[0]> = {}) =>
    new NetworkClient({ baseUrl: system.baseUrl, apiKey, ...options });

  before(async () => {
    system = await startSystem();
    redis = createRedis(system.infra.redisUrl, 'client-test');
    await waitForRedis(redis);
    admin = await signedIn(system, ADMIN_ID);
    advertiser = await signedIn(system, '7101');
    owner = await signedIn(system, '7102');
    campaign = await activeCampaign(advertiser, admin, { text: 'Plain text: <b>not bold</b> & *not a list*' });
    key = (await approvedPublisher(system, owner, admin)).server.key;
  });

  after(async () => {
    redis?.disconnect();
    await system?.stop();
  });

  it('has committed types that openapi-typescript generates, unchanged, from the served document', async () => {
    const response = await fetch(`${system.baseUrl}/api/network/openapi.json`);
    expect(response.status).to.equal(200);
    const document = (await response.json()) as Record<string, unknown>;
    const committed = await readFile(GENERATED_FILE, 'utf8');
    expect(await renderTypes(document), 'regenerate: pnpm --filter @pilot/network-client run generate <base>/api/network/openapi.json').to.equal(committed);
  });

  it('validates answers with the schemas of the served document, copied unchanged', async () => {
    const document = (await (await fetch(`${system.baseUrl}/api/network/openapi.json`)).json()) as Record<string, unknown>;
    const committed = await readFile(SCHEMAS_FILE, 'utf8');
    expect(renderSchemas(document), 'regenerate: pnpm --filter @pilot/network-client run generate <base>/api/network/openapi.json').to.equal(committed);
  });

  it('returns the Ad of a 200, then confirms its delivery once and idempotently', async () => {
    const client = clientWith(key);
    const ad = await waitFor(() => client.requestAd({ language: 'en' }), { timeoutMs: 15_000, message: 'an ad to be served' });
    expect(isAd(ad)).to.equal(true);
    expect(ad).to.include({
      campaign_id: campaign.id,
      title: campaign.title,
      text: campaign.text,
      button_text: campaign.buttonText,
      image_url: null,
      sponsored: true,
      billing: 'pilot_non_billable',
    });
    expect(ad.click_url.startsWith(`${system.baseUrl}/api/network/click/`)).to.equal(true);
    served = ad;

    expect(await client.confirmDelivery(ad.delivery_token)).to.deep.equal({ status: 'confirmed', first_confirmation: true });
    expect(await client.confirmDelivery(ad.delivery_token)).to.deep.equal({ status: 'confirmed', first_confirmation: false });
    const totals = await waitFor(async () => {
      const answer = await owner.get<Totals>('/api/workspace/stats');
      return answer.body.confirmedDeliveries === 1 ? answer.body : null;
    }, { message: 'the confirmation to be counted' });
    expect(totals.confirmedDeliveries).to.equal(1);
  });

  it('returns null on 204 (only campaigns of the publisher’s own account match)', async () => {
    const own = await approvedPublisher(system, advertiser, admin);
    expect(await clientWith(own.server.key).requestAd({ language: 'en' })).to.equal(null);
    expect(await clientWith(own.server.key).requestAdResult({ language: 'en' }), 'and says why').to.deep.equal({ ad: null, noFillReason: 'own_campaigns_only' });
  });

  it('throws UnauthorizedError on 401 at once, without retrying', async () => {
    const retries: RetryEvent[] = [];
    const error = await clientWith('pilot_pk_does_not_exist', { onRetry: (e) => retries.push(e) }).requestAd().catch((e: unknown) => e);
    expect(error).to.be.instanceOf(UnauthorizedError);
    expect(error).to.include({ status: 401, attempts: 1 });
    expect((error as UnauthorizedError).problem?.code).to.be.a('string');
    expect(retries).to.deep.equal([]);
  });

  it('throws a 400 invalid_language NetworkApiError at once', async () => {
    const error = await clientWith(key).requestAd({ language: 'english' }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(NetworkApiError);
    expect(error).to.include({ status: 400, code: 'invalid_language', attempts: 1 });
  });

  it('throws the 400 invalid_token and the 404 token_not_found of the delivery endpoint, without retrying', async () => {
    const malformed = await clientWith(key).confirmDelivery('not-a-delivery-token').catch((e: unknown) => e);
    expect(malformed).to.be.instanceOf(NetworkApiError);
    expect(malformed).to.include({ status: 400, code: 'invalid_token', attempts: 1 });

    expect(served, 'the ad of the 200 test').to.not.equal(null);
    const other = await approvedPublisher(system, owner, admin);
    const foreign = await clientWith(other.server.key).confirmDelivery(served?.delivery_token ?? '').catch((e: unknown) => e);
    expect(foreign).to.be.instanceOf(NetworkApiError);
    expect(foreign).to.include({ status: 404, code: 'token_not_found', attempts: 1 });
  });

  it('on 429 waits the Retry-After the service sends, then asks again (and gives up when the budget is smaller)', async () => {
    // A publisher whose only match is its own account's campaign: every request answers 204 and counts.
    const limited = await approvedPublisher(system, advertiser, admin);
    const once = clientWith(limited.server.key, { retry: { maxAttempts: 1 } });
    for (let i = 0; i < 60; i += 1) expect(await once.requestAd()).to.equal(null);

    const refused = await once.requestAd().catch((e: unknown) => e);
    expect(refused).to.be.instanceOf(RateLimitedError);
    expect(refused).to.include({ status: 429, code: 'rate_limited', attempts: 1 });
    const retryAfter = (refused as RateLimitedError).retryAfterSeconds;
    expect(retryAfter).to.be.a('number').within(1, 60);

    const noBudget = await clientWith(limited.server.key, { retry: { maxAttempts: 5, maxTotalWaitMs: 0 } }).requestAd().catch((e: unknown) => e);
    expect(noBudget).to.be.instanceOf(RateLimitedError);
    expect(noBudget).to.include({ attempts: 1 });

    // The client's wait, without spending a minute of the run: the window must end within the wait it was
    // told (its time to live in Redis is at most the wait), and then ends, as it would by the wait's end.
    const window = countKeys(system.infra.redisPrefix).adRequestLimit(limited.publisher.id);
    const waits: number[] = [];
    const waitOut = async (ms: number): Promise<void> => {
      waits.push(ms);
      const left = await redis.pttl(window);
      expect(left, 'the window ends within the wait the service named').to.be.within(1, ms);
      await redis.pexpire(window, 1);
      await waitFor(async () => (await redis.exists(window)) === 0, { intervalMs: 5, message: 'the window ended' });
    };
    const retries: RetryEvent[] = [];
    const patient = clientWith(limited.server.key, { retry: { maxAttempts: 2, maxTotalWaitMs: 65_000 }, onRetry: (e) => retries.push(e), sleep: waitOut });
    expect(await patient.requestAd()).to.equal(null);
    expect(retries).to.have.length(1);
    expect(waits, 'the client waited exactly what it announced').to.deep.equal([retries[0]?.delayMs]);
    expect(retries[0]).to.include({ attempt: 1, status: 429 });
    expect(retries[0]?.delayMs).to.equal((retries[0]?.retryAfterSeconds ?? 0) * 1000);
    expect(retries[0]?.retryAfterSeconds).to.be.within(1, 60);
  });

  it('works in the sandbox with a draft platform’s test key: the test ad, its confirmation, and the answers testAnswer forces', async () => {
    const draft = await owner.post<{ id: number }>('/api/workspace/publishers', { type: 'bot', link: '@client_sandbox_bot' });
    expect(draft.status).to.equal(201);
    const made = await owner.post<{ key: string }>(`/api/workspace/publishers/${draft.body.id}/test-key`);
    expect(made.status).to.equal(201);
    expect(made.body.key.startsWith('pilot_pk_test_')).to.equal(true);
    const sandbox = clientWith(made.body.key, { retry: { maxAttempts: 1 } });
    const before = (await owner.get<Totals>('/api/workspace/stats')).body;

    const ad = await waitFor(() => sandbox.requestAd({ language: 'pt-BR' }), { timeoutMs: 15_000, message: 'the test ad' });
    expect(ad).to.include({ campaign_id: 4294967295, sponsored: true, billing: 'pilot_non_billable' });
    expect(ad.title.startsWith('Test ad')).to.equal(true);
    expect(await sandbox.confirmDelivery(ad.delivery_token)).to.deep.equal({ status: 'confirmed', first_confirmation: true });
    expect(await sandbox.confirmDelivery(ad.delivery_token)).to.deep.equal({ status: 'confirmed', first_confirmation: false });

    expect(await sandbox.requestAd({ testAnswer: '204' })).to.equal(null);
    expect(await sandbox.requestAdResult({ testAnswer: '204' })).to.deep.equal({ ad: null, noFillReason: 'no_active_campaign' });
    const expired = await sandbox.confirmDelivery(ad.delivery_token, { testAnswer: '404' }).catch((e: unknown) => e);
    expect(expired).to.be.instanceOf(NetworkApiError);
    expect(expired).to.include({ status: 404, code: 'token_expired' });
    const refusedConfirmation = await sandbox.confirmDelivery(ad.delivery_token, { testAnswer: '503' }).catch((e: unknown) => e);
    expect(refusedConfirmation).to.be.instanceOf(ServiceUnavailableError);
    const limited = await sandbox.requestAd({ testAnswer: '429' }).catch((e: unknown) => e);
    expect(limited).to.be.instanceOf(RateLimitedError);
    expect(limited).to.include({ status: 429, code: 'rate_limited' });
    const unavailable = await sandbox.requestAd({ testAnswer: '503' }).catch((e: unknown) => e);
    expect(unavailable).to.be.instanceOf(ServiceUnavailableError);
    expect(unavailable).to.include({ status: 503, code: 'service_unavailable' });
    expect((unavailable as ServiceUnavailableError).retryAfterSeconds).to.be.a('number');

    // Nothing done with the test key was counted (tests/e2e/sandbox.test.ts waits for the counts too);
    // a live key ignores the header.
    expect((await owner.get<Totals>('/api/workspace/stats')).body).to.deep.include({ adRequests: before.adRequests, confirmedDeliveries: before.confirmedDeliveries });
    expect(await clientWith(key).requestAd({ language: 'en', testAnswer: '503' })).to.include({ campaign_id: campaign.id });
  });

  it('surfaces a forced 503 at once with the default retry policy when the call asks for one attempt', async () => {
    const draft = await owner.post<{ id: number }>('/api/workspace/publishers', { type: 'bot', link: '@client_quick_bot' });
    const made = await owner.post<{ key: string }>(`/api/workspace/publishers/${draft.body.id}/test-key`);
    const waits: number[] = [];
    // The default policy (3 attempts, 10 s of waits), with the waits recorded instead of slept.
    const sandbox = clientWith(made.body.key, { sleep: async (ms) => void waits.push(ms) });
    const error = await sandbox.requestAd({ testAnswer: '503', retry: { maxAttempts: 1 } }).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(ServiceUnavailableError);
    expect(error).to.include({ attempts: 1 });
    expect(waits, 'no wait of Retry-After').to.deep.equal([]);
    const patient = await sandbox.requestAd({ testAnswer: '503' }).catch((e: unknown) => e);
    expect(patient).to.include({ attempts: 3 });
    expect(waits, 'without the call\'s option: two waits of the 503\'s Retry-After').to.deep.equal([5_000, 5_000]);
  });
});

describe('publisher network client against local servers', function () {
  this.timeout(60_000);

  it('waits the Retry-After of a 503 on the ad request, then returns the ad', async () => {
    const ad: Ad = {
      campaign_id: 3,
      title: 'T',
      text: 'X',
      button_text: 'Go',
      image_url: null,
      click_url: 'http://127.0.0.1/api/network/click/abc',
      delivery_token: 'tok',
      expires_in: 3600,
      sponsored: true,
      billing: 'pilot_non_billable',
    };
    let calls = 0;
    const server = await localServer((_request, res) => {
      calls += 1;
      if (calls === 1) {
        res.writeHead(503, { 'content-type': 'application/problem+json', 'retry-after': '1' });
        res.end(JSON.stringify({ type: 'urn:pilot:problem:service_unavailable', title: 'x', status: 503, detail: 'x', code: 'service_unavailable' }));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(ad));
    });
    try {
      const retries: RetryEvent[] = [];
      const client = new NetworkClient({ baseUrl: server.url, apiKey: 'k', onRetry: (e) => retries.push(e) });
      expect(await client.requestAd()).to.deep.equal(ad);
      expect(retries).to.deep.equal([{ attempt: 1, status: 503, retryAfterSeconds: 1, delayMs: 1000 }]);
      expect(server.requests).to.have.length(2);
      expect(server.requests.every((r) => r.headers.authorization === 'Bearer k')).to.equal(true);
    } finally {
      await server.close();
    }
  });

  it('surfaces a confirmation without answer as DeliveryOutcomeUnknownError and never sends it again', async () => {
    const server = await localServer(() => {
      // never answers
    });
    try {
      const client = new NetworkClient({ baseUrl: server.url, apiKey: 'k', deliveryTimeoutMs: 500 });
      const error = await client.confirmDelivery('tok').catch((e: unknown) => e);
      expect(error).to.be.instanceOf(DeliveryOutcomeUnknownError);
      expect(error).to.include({ timedOut: true, token: 'tok' });
      // A retry, were there one, announces nothing before it comes: a bounded window for it to arrive.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(server.requests).to.have.length(1);
      expect(server.requests[0]).to.include({ method: 'POST', path: '/api/network/delivery', body: '{"token":"tok"}' });
    } finally {
      await server.close();
    }
  });
});
