import { compile, networkOpenApi } from '@pilot/contracts';
import { problemTypeOf, signedHeaders } from '@pilot/platform';
import { generateApiKey, hashApiKey } from '@pilot/publisher-keys';
import { testInfra, waitFor } from '@pilot/testkit';
import { readToken } from '@pilot/tokens';
import { expect } from 'chai';
import request from 'supertest';
import type { RunningAllocation } from '../src/start';
import {
  activeCampaign,
  bearer,
  campaignSnapshot,
  getAd,
  publisherId,
  PUBLIC_BASE_URL,
  startAllocation,
  TestWorld,
  untilReady,
  type CampaignSnapshot,
} from './support';

const adSchema = (networkOpenApi({ problemType: (code) => problemTypeOf(code) }) as { components: { schemas: { Ad: object } } }).components.schemas.Ad;
const validateAd = compile(adSchema);

/**
 * Each test uses its own publishers and its own languages, so they share one running service and one
 * index without seeing each other's campaigns or counters.
 */
describe('GET /api/network/ad', function () {
  this.timeout(30_000);
  const infra = testInfra();
  const world = new TestWorld(infra);
  // Campaigns present in the snapshot the service starts from.
  const french = activeCampaign({ language: 'fr', ownerAccountId: '5001' });
  const english = activeCampaign({ language: 'en', ownerAccountId: '5002', imageUrl: null });
  const italian = activeCampaign({ language: 'it', ownerAccountId: '5003' });
  const everyLanguage = activeCampaign({ language: 'all', ownerAccountId: '5004', format: 'channel' });
  const spanishChannel = activeCampaign({ language: 'es', ownerAccountId: '5005', format: 'channel' });
  const spanishBot = activeCampaign({ language: 'es', ownerAccountId: '5005', format: 'bot' });
  const dutchOwn = activeCampaign({ language: 'nl', ownerAccountId: '7001' });
  let snapshot: CampaignSnapshot;
  let service: RunningAllocation;

  before(async () => {
    await world.ready();
    snapshot = await campaignSnapshot(infra, [french, english, italian, everyLanguage, spanishChannel, spanishBot, dutchOwn]);
    service = await startAllocation(infra, snapshot.url);
    await untilReady(service);
  });

  after(async () => {
    await service?.stop();
    await snapshot?.close();
    await world.close();
  });

  it('answers 200 with the Ad object of SPEC.md, its constants, tokens for tracking and Cache-Control: no-store', async () => {
    const id = publisherId();
    const key = await world.publisher(id, '6001');
    const response = await getAd(service, infra, '?language=fr', bearer(key)).expect(200);

    expect(response.headers['content-type']).to.match(/^application\/json/);
    expect(response.headers['cache-control']).to.equal('no-store');
    expect(validateAd(response.body), JSON.stringify(validateAd.errors)).to.equal(true);
    expect(Object.keys(response.body).sort()).to.deep.equal(
      ['billing', 'button_text', 'campaign_id', 'click_url', 'delivery_token', 'expires_in', 'image_url', 'sponsored', 'text', 'title'],
    );
    expect(response.body).to.include({
      campaign_id: french.campaignId,
      title: french.title,
      text: french.text,
      button_text: french.buttonText,
      image_url: french.imageUrl,
      expires_in: 3600,
      sponsored: true,
      billing: 'pilot_non_billable',
    });

    const prefix = `${PUBLIC_BASE_URL}/api/network/click/`;
    expect(response.body.click_url.startsWith(prefix)).to.equal(true);
    const clickToken = response.body.click_url.slice(prefix.length);
    const click = readToken({ current: infra.tokenSecret, previous: null }, 'click', clickToken);
    const delivery = readToken({ current: infra.tokenSecret, previous: null }, 'delivery', response.body.delivery_token);
    expect(click).to.not.equal(null);
    expect(delivery).to.deep.equal(click);
    expect(delivery).to.include({ campaignId: french.campaignId, publisherId: id, campaignOwnerAccountId: '5001', publisherOwnerAccountId: '6001' });
    // Distinct purposes: a delivery token is not a click token.
    expect(readToken({ current: infra.tokenSecret, previous: null }, 'click', response.body.delivery_token)).to.equal(null);
    expect(JSON.stringify({ token: response.body.delivery_token }).length).to.be.below(200);
  });

  it('answers an Ad that validates against the Ad schema of the OpenAPI description it serves', async () => {
    const path = '/api/network/openapi.json';
    const doc = (await request(service.url).get(path).set(signedHeaders(infra.internalSecret, { method: 'GET', url: path })).expect(200)).body;
    const validateServed = compile(doc.components.schemas.Ad);
    const key = await world.publisher(publisherId(), '6017');
    const response = await getAd(service, infra, '?language=fr', bearer(key)).expect(200);
    expect(validateServed(response.body), JSON.stringify(validateServed.errors)).to.equal(true);
    const headers = doc.paths['/api/network/ad'].get.responses['200'].headers as Record<string, unknown>;
    const components = doc.components.headers as Record<string, { required?: boolean }>;
    // X-Request-Id is the gateway's (tests/publishers/openapi.test.ts checks it through the gateway).
    const required = Object.keys(headers).filter((name) => components[name]?.required && name !== 'X-Request-Id');
    expect(required).to.include.members(['Cache-Control', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'RateLimit-Policy']);
    for (const name of required) expect(response.headers[name.toLowerCase()], name).to.be.a('string');
  });

  it('answers an image-less creative with image_url null', async () => {
    const key = await world.publisher(publisherId(), '6002');
    const response = await getAd(service, infra, '', bearer(key)).expect(200);
    expect(response.body.campaign_id).to.equal(english.campaignId);
    expect(response.body.image_url).to.equal(null);
    expect(validateAd(response.body)).to.equal(true);
  });

  it('counts one ad request per 200 on the day of its tokens, for its campaign and publisher, a 204 as unfilled, and nothing for a 400', async () => {
    const id = publisherId();
    const key = await world.publisher(id, '6003');
    const answers = [];
    for (let i = 0; i < 3; i += 1) answers.push((await getAd(service, infra, '?language=it', bearer(key)).expect(200)).body);
    await getAd(service, infra, '?language=ka', bearer(key)).expect(204);
    await getAd(service, infra, '?language=english', bearer(key)).expect(400);
    const claims = answers.map((ad) => readToken({ current: infra.tokenSecret, previous: null }, 'delivery', ad.delivery_token)!);
    const day = claims[0]!.issuedAt.toISOString().slice(0, 10);
    expect(await world.adRequestsOf(id)).to.deep.equal(
      new Map([
        [`${day}|adRequests`, 3],
        [`${day}|unfilledAdRequests`, 1],
      ]),
    );
    for (const claim of claims) expect(claim).to.include({ campaignId: italian.campaignId, campaignOwnerAccountId: '5003', publisherId: id, publisherOwnerAccountId: '6003' });
    const { parts } = await world.counts.read([`c:${italian.campaignId}`, `cp:${italian.campaignId}:${id}`, 'co:5003', 'po:6003']);
    const byGrain = (grain: string) => parts.filter((part) => part.grain === grain).reduce((sum, part) => sum + (part.fields.get(`${day}|adRequests`) ?? 0), 0);
    expect(byGrain(`cp:${italian.campaignId}:${id}`)).to.equal(3);
    expect(byGrain('po:6003')).to.equal(3);
    expect(byGrain(`c:${italian.campaignId}`)).to.be.at.least(3);
    const unfilled = (grain: string) => parts.filter((part) => part.grain === grain).reduce((sum, part) => sum + (part.fields.get(`${day}|unfilledAdRequests`) ?? 0), 0);
    expect(unfilled('po:6003'), 'the 204 in the publisher owner\'s grain').to.equal(1);
    expect(unfilled('co:5003'), 'and in no campaign\'s').to.equal(0);
  });

  it('answers 204 with no body when no campaign matches', async () => {
    const key = await world.publisher(publisherId(), '6004');
    const response = await getAd(service, infra, '?language=ja', bearer(key)).expect(204);
    expect(response.headers['pilot-no-fill-reason'], 'bots have campaigns, none in ja or all').to.equal('no_campaign_for_language');
    expect(response.text ?? '').to.equal('');
    expect(response.headers['content-type']).to.equal(undefined);
    expect(response.headers['content-length'] ?? '0').to.equal('0');
  });

  it('defaults the language to en and accepts an uppercase code, lowercased', async () => {
    const key = await world.publisher(publisherId(), '6005');
    expect((await getAd(service, infra, '', bearer(key)).expect(200)).body.campaign_id).to.equal(english.campaignId);
    expect((await getAd(service, infra, '?language=FR', bearer(key)).expect(200)).body.campaign_id).to.equal(french.campaignId);
    // The messaging platform hands bots BCP 47 tags: selection uses the primary subtag (API.md).
    expect((await getAd(service, infra, '?language=fr-CA', bearer(key)).expect(200)).body.campaign_id).to.equal(french.campaignId);
    expect((await getAd(service, infra, '?language=EN-us', bearer(key)).expect(200)).body.campaign_id).to.equal(english.campaignId);
  });

  it('refuses a language that is neither an ISO 639-1 code nor a BCP 47 tag of one, all included, with 400 invalid_language', async () => {
    const key = await world.publisher(publisherId(), '6006');
    for (const query of ['?language=all', '?language=xx', '?language=eng', '?language=', '?language=e1', '?language=english', '?language=zz-US', '?language=en_US', '?language=en&language=fr']) {
      const response = await getAd(service, infra, query, bearer(key)).expect(400);
      expect(response.headers['content-type'], query).to.match(/^application\/problem\+json/);
      expect(response.body, query).to.include({ status: 400, code: 'invalid_language' });
    }
  });

  it('selects a campaign whose language is all for any requested language, and not one of another language', async () => {
    const key = await world.publisher(publisherId(), '6007', { type: 'channel' });
    // For a channel: `all` qualifies for de; the Spanish channel campaign does not.
    for (let i = 0; i < 5; i += 1) {
      expect((await getAd(service, infra, '?language=de', bearer(key)).expect(200)).body.campaign_id).to.equal(everyLanguage.campaignId);
    }
  });

  it("selects only campaigns of the publisher's format, never a query parameter", async () => {
    const bot = await world.publisher(publisherId(), '6008', { type: 'bot' });
    const channel = await world.publisher(publisherId(), '6009', { type: 'channel' });
    const seenByBot = new Set<number>();
    const seenByChannel = new Set<number>();
    for (let i = 0; i < 8; i += 1) {
      seenByBot.add((await getAd(service, infra, '?language=es&format=channel', bearer(bot)).expect(200)).body.campaign_id);
      seenByChannel.add((await getAd(service, infra, '?language=es', bearer(channel)).expect(200)).body.campaign_id);
    }
    expect([...seenByBot]).to.deep.equal([spanishBot.campaignId]);
    // The channel publisher sees the Spanish channel campaign and the `all` channel campaign, never the bot one.
    expect(seenByChannel.has(spanishBot.campaignId)).to.equal(false);
    expect(seenByChannel.has(spanishChannel.campaignId)).to.equal(true);
  });

  it("excludes the publisher's own account's campaigns, answering 204 when only those match", async () => {
    const own = await world.publisher(publisherId(), '7001');
    const other = await world.publisher(publisherId(), '7002');
    const refused = await getAd(service, infra, '?language=nl', bearer(own)).expect(204);
    expect(refused.headers['pilot-no-fill-reason']).to.equal('own_campaigns_only');
    expect((await getAd(service, infra, '?language=nl', bearer(other)).expect(200)).body.campaign_id).to.equal(dutchOwn.campaignId);
  });

  it('stops selecting a campaign once its campaign.paused event arrives, and selects one once activated', async () => {
    const key = await world.publisher(publisherId(), '6010');
    const swedish = activeCampaign({ language: 'sv', ownerAccountId: '5010', version: 4 });
    await getAd(service, infra, '?language=sv', bearer(key)).expect(204);
    await world.activated(swedish);
    await waitFor(() => service.index.has(swedish.campaignId), { message: 'activation applied' });
    expect((await getAd(service, infra, '?language=sv', bearer(key)).expect(200)).body.campaign_id).to.equal(swedish.campaignId);
    await world.paused(swedish, 5);
    await waitFor(() => !service.index.has(swedish.campaignId), { message: 'pause applied' });
    await getAd(service, infra, '?language=sv', bearer(key)).expect(204);
    // A stale activation (older version) does not bring it back.
    await world.activated({ ...swedish, version: 4 });
    const marker = activeCampaign({ language: 'sv', ownerAccountId: '5011', version: 2 });
    await world.activated(marker); // events are applied in order: once the marker is in, the stale one was seen
    await waitFor(() => service.index.has(marker.campaignId));
    expect(service.index.has(swedish.campaignId)).to.equal(false);
  });

  it('refuses a request without a key with 401 missing_key', async () => {
    const response = await getAd(service, infra, '?language=fr').expect(401);
    expect(response.headers['content-type']).to.match(/^application\/problem\+json/);
    expect(response.headers['www-authenticate']).to.equal('Bearer realm="pilot-network"');
    expect(response.body).to.include({ status: 401, code: 'missing_key' });
  });

  it('answers missing_key, with no RFC 6750 error, when the header offers no bearer key (another scheme, the scheme alone)', async () => {
    const known = await world.publisher(publisherId(), '6013');
    for (const authorization of [`Basic ${known}`, 'Bearer ', 'Bearer', known]) {
      const response = await getAd(service, infra, '?language=fr', authorization).expect(401);
      expect(response.body.code, authorization).to.equal('missing_key');
      expect(response.headers['www-authenticate'], authorization).to.equal('Bearer realm="pilot-network"');
    }
  });

  it('refuses a malformed or unknown bearer key with 401 invalid_key and error="invalid_token" (RFC 6750)', async () => {
    const known = await world.publisher(publisherId(), '6011');
    const unknown = `${known.slice(0, -10)}${'A'.repeat(10)}`; // right shape, wrong checksum or unknown
    for (const authorization of ['Bearer abc', bearer(unknown), bearer(`${known}x`)]) {
      const response = await getAd(service, infra, '?language=fr', authorization).expect(401);
      expect(response.body.code, authorization).to.equal('invalid_key');
      expect(response.headers['www-authenticate'], authorization).to.equal('Bearer realm="pilot-network", error="invalid_token", error_description="invalid_key"');
    }
  });

  it('accepts the bearer scheme in any case (RFC 9110): bearer and BEARER are Bearer', async () => {
    const known = await world.publisher(publisherId(), '6012');
    for (const authorization of [`bearer ${known}`, `BEARER ${known}`]) {
      const response = await getAd(service, infra, '?language=fr', authorization);
      expect(response.status, authorization).to.be.oneOf([200, 204]);
    }
  });

  it('refuses the key of a paused or rejected publisher with 401 publisher_not_approved on its next request', async () => {
    const id = publisherId();
    const key = await world.publisher(id, '6012');
    await getAd(service, infra, '?language=fr', bearer(key)).expect(200);
    const entry = { publisherId: id, ownerAccountId: '6012', type: 'bot' as const, keyHash: hashApiKey(key), incarnation: 'test' };
    await world.keys.writePublisher({ ...entry, status: 'paused', version: 2 });
    expect((await getAd(service, infra, '?language=fr', bearer(key)).expect(401)).body.code).to.equal('publisher_not_approved');
    await world.keys.writePublisher({ ...entry, status: 'rejected', version: 3 });
    expect((await getAd(service, infra, '?language=fr', bearer(key)).expect(401)).body.code).to.equal('publisher_not_approved');
  });

  it('refuses a key whose publisher record is not approved even if a key entry lingers (publisher_not_approved)', async () => {
    const id = publisherId();
    const key = await world.publisher(id, '6013');
    // Written as publisher-identity writes a pause: the key entry stays (it is still the publisher's key),
    // only the publisher record's status changes, and that status is checked on every request as well.
    await world.keys.writePublisher({ publisherId: id, status: 'paused', ownerAccountId: '6013', type: 'bot', keyHash: hashApiKey(key), version: 2, incarnation: 'test' });
    expect((await getAd(service, infra, '?language=fr', bearer(key)).expect(401)).body.code).to.equal('publisher_not_approved');
  });

  it('refuses a rotated key on the next request and accepts the new one', async () => {
    const id = publisherId();
    const oldKey = await world.publisher(id, '6014');
    await getAd(service, infra, '?language=fr', bearer(oldKey)).expect(200);
    const newKey = generateApiKey();
    await world.keys.writePublisher({ publisherId: id, status: 'approved', ownerAccountId: '6014', type: 'bot', keyHash: hashApiKey(newKey), version: 2, incarnation: 'test' }, [hashApiKey(oldKey)]);
    expect((await getAd(service, infra, '?language=fr', bearer(oldKey)).expect(401)).body.code).to.equal('invalid_key');
    await getAd(service, infra, '?language=fr', bearer(newKey)).expect(200);
  });

  it('answers the 61st request of a publisher within a minute with 429, Retry-After and rate-limit headers', async () => {
    const key = await world.publisher(publisherId(), '6015');
    for (let i = 1; i <= 60; i += 1) {
      const response = await getAd(service, infra, '?language=ja', bearer(key)).expect(204);
      expect(response.headers['ratelimit-limit']).to.equal('60');
      expect(response.headers['ratelimit-remaining']).to.equal(String(60 - i));
      expect(response.headers['ratelimit-policy']).to.equal('60;w=60');
    }
    const refused = await getAd(service, infra, '?language=ja', bearer(key)).expect(429);
    expect(refused.headers['content-type']).to.match(/^application\/problem\+json/);
    expect(refused.body).to.include({ status: 429, code: 'rate_limited' });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).to.be.within(1, 60);
    expect(refused.headers['ratelimit-remaining']).to.equal('0');
    expect(Number(refused.headers['ratelimit-reset'])).to.equal(retryAfter);
    // Another publisher is not affected.
    const other = await world.publisher(publisherId(), '6015');
    await getAd(service, infra, '?language=ja', bearer(other)).expect(204);
  });

  it('answers HEAD and other methods with 405 and Allow: GET, allocating nothing', async () => {
    const id = publisherId();
    const key = await world.publisher(id, '6018');
    const path = '/api/network/ad?language=fr';
    const head = await request(service.url).head(path).set(signedHeaders(infra.internalSecret, { method: 'HEAD', url: path })).set('Authorization', bearer(key));
    expect(head.status).to.equal(405);
    expect(head.headers.allow).to.equal('GET');
    const post = await request(service.url).post(path).set(signedHeaders(infra.internalSecret, { method: 'POST', url: path })).set('Authorization', bearer(key));
    expect(post.status).to.equal(405);
    expect(post.body.code).to.equal('method_not_allowed');
    await getAd(service, infra, '?language=fr', bearer(key)).expect(200);
    expect(await world.adRequestTotalOf(id)).to.equal(1);
  });

  it('refuses a call that did not come through the gateway', async () => {
    const key = await world.publisher(publisherId(), '6016');
    const response = await request(service.url).get('/api/network/ad').set('Authorization', bearer(key)).expect(401);
    expect(response.body.code).to.equal('internal_signature_invalid');
  });

  it('reports ready when Redis, RabbitMQ and the campaign snapshot are in place', async () => {
    const response = await request(service.url).get('/readyz').expect(200);
    expect(response.body.checks).to.deep.equal({ redis: 'ok', rabbitmq: 'ok', campaignSnapshot: 'ok' });
  });
});

describe('GET /api/network/openapi.json', function () {
  this.timeout(30_000);
  const infra = testInfra();
  let snapshot: CampaignSnapshot;
  let service: RunningAllocation;

  before(async () => {
    snapshot = await campaignSnapshot(infra, []);
    service = await startAllocation(infra, snapshot.url);
  });

  after(async () => {
    await service?.stop();
    await snapshot?.close();
  });

  type Doc = {
    openapi: string;
    info: Record<string, unknown>;
    paths: Record<string, Record<string, { responses?: Record<string, unknown>; security?: unknown[] }>>;
    components: { securitySchemes: Record<string, { type: string; scheme: string }> };
  };

  async function document(): Promise<Doc> {
    const path = '/api/network/openapi.json';
    const response = await request(service.url).get(path).set(signedHeaders(infra.internalSecret, { method: 'GET', url: path })).expect(200);
    expect(response.headers['content-type']).to.match(/^application\/json/);
    return response.body as Doc;
  }

  it('describes the network API as OpenAPI 3.1, version 0.1.0, labelled pilot', async () => {
    const doc = await document();
    expect(doc.openapi).to.match(/^3\.1\.\d+$/);
    expect(doc.info.version).to.equal('0.1.0');
    expect(doc.info['x-label']).to.equal('pilot');
    expect(String(doc.info.title).toLowerCase()).to.contain('pilot');
    expect(doc.components.securitySchemes.publisherKey).to.include({ type: 'http', scheme: 'bearer' });
  });

  it('names its license, a contact and the guide, with absolute links under PUBLIC_BASE_URL', async () => {
    const doc = (await document()) as Doc & { externalDocs: { url: string } };
    expect(doc.info.license).to.deep.equal({ name: 'MIT', identifier: 'MIT' });
    expect((doc.info.contact as { url: string }).url).to.equal(`${PUBLIC_BASE_URL.replace(/\/+$/, '')}/`);
    expect(doc.externalDocs.url).to.equal(`${PUBLIC_BASE_URL.replace(/\/+$/, '')}/`);
  });

  it('validates against the official OpenAPI 3.1 schema, and its component schemas compile under the strict request validator', async () => {
    const doc = await document();
    // The validator package is ESM-only; the tests run as CommonJS.
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const result = await new Validator().validate(doc as unknown as Record<string, unknown>);
    expect(result.valid, JSON.stringify(result.errors)).to.equal(true);
    const schemas = (doc as unknown as { components: { schemas: Record<string, object> } }).components.schemas;
    for (const [name, schema] of Object.entries(schemas)) expect(() => compile(schema), name).to.not.throw();
  });

  it('lists the three network endpoints with every status code they answer', async () => {
    const doc = await document();
    const statuses = (path: string, method: string) => Object.keys(doc.paths[path]?.[method]?.responses ?? {}).sort();
    expect(statuses('/api/network/ad', 'get')).to.deep.equal(['200', '204', '400', '401', '429', '502', '503', '504']);
    expect(statuses('/api/network/delivery', 'post')).to.deep.equal(['200', '400', '401', '404', '413', '415', '502', '503', '504']);
    expect(statuses('/api/network/click/{token}', 'get')).to.deep.equal(['302', '400', '404', '410', '502', '503', '504']);
    expect(statuses('/api/network/click/{token}', 'head')).to.deep.equal(['302', '404', '410', '502', '503', '504']);
    expect(doc.paths['/api/network/click/{token}']?.get?.security).to.deep.equal([]);
  });

  it('resolves every $ref it contains', async () => {
    const doc = await document();
    const refs: string[] = [];
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        for (const [name, value] of Object.entries(node)) {
          if (name === '$ref' && typeof value === 'string') refs.push(value);
          else walk(value);
        }
      }
    };
    walk(doc);
    expect(refs.length).to.be.above(10);
    for (const ref of refs) {
      const target = ref
        .replace(/^#\//, '')
        .split('/')
        .reduce<unknown>((node, part) => (node as Record<string, unknown> | undefined)?.[part], doc);
      expect(target, ref).to.not.equal(undefined);
    }
  });
});
