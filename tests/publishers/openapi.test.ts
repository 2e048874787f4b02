/**
 * The network API's OpenAPI document (GET /api/network/openapi.json) against the running system: every
 * example validates against its schema, a live 200 Ad looks like the example, and every problem code a
 * response lists is provoked through the gateway and answered with the body of its example, so the enums
 * hold exactly the codes the routes answer. 502 and 504 come from the real gateway (an upstream stopped,
 * an upstream that never answers); 503 is compared with the answer every service builds for an
 * infrastructure fault (provoking it would mean stopping the shared Redis: tests/faults does that).
 */
import { compile } from '@pilot/contracts';
import { problems, createLogger } from '@pilot/platform';
import { waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { loadConfig as gatewayConfig } from '../../services/gateway/src/config';
import { start as startGateway } from '../../services/gateway/src/start';
import { issueToken, isWellFormedToken } from '../../packages/tokens/src';
import { signedIn, type Browser } from '../e2e/support/clients';
import { sendRaw } from '../e2e/support/raw-http';
import { activeCampaign, approvedPublisher, type Campaign } from '../e2e/support/scenario';
import { ADMIN_ID, startSystem, type System } from '../e2e/support/system';
import { localServer } from './support/local-server';

type Json = Record<string, unknown>;
interface Media {
  schema: Json;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface ResponseDoc {
  headers?: Record<string, unknown>;
  content?: Record<string, Media>;
}
interface OperationDoc {
  responses: Record<string, ResponseDoc>;
  requestBody?: { content: Record<string, Media> };
}
interface Doc {
  paths: Record<string, Record<string, OperationDoc>>;
  components: Json;
}
interface LiveAnswer {
  status: number;
  headers: Headers | Record<string, string>;
  body: Json;
}

const AD = '/api/network/ad';
const DELIVERY = '/api/network/delivery';
const CLICK = '/api/network/click/{token}';

/** The schema with every local $ref replaced by its target (the document has no cycles). */
function resolved(node: unknown, doc: Doc): unknown {
  if (Array.isArray(node)) return node.map((item) => resolved(item, doc));
  if (!node || typeof node !== 'object') return node;
  const ref = (node as Json).$ref;
  if (typeof ref === 'string') {
    const target = ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>((at, part) => (at as Json | undefined)?.[part], doc);
    return resolved(target, doc);
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, resolved(value, doc)]));
}

async function answerOf(response: Response): Promise<LiveAnswer> {
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as Json) : {} };
}

const headerOf = (answer: LiveAnswer, name: string): string | null =>
  answer.headers instanceof Headers ? answer.headers.get(name) : (answer.headers[name.toLowerCase()] ?? null);

describe('the OpenAPI document against the running system', function () {
  this.timeout(240_000);
  let system: System;
  let admin: Browser;
  let advertiser: Browser;
  let owner: Browser;
  let english: Campaign;
  let turkish: Campaign;
  let key: string;
  let publisherId: number;
  let doc: Doc;
  /** Every problem answer seen: `${path} ${method} ${status} ${code}`. */
  const seen = new Set<string>();

  const media = (path: string, method: string, status: number): Media => {
    const content = doc.paths[path]?.[method]?.responses[String(status)]?.content;
    expect(content, `${method} ${path} ${status} is documented with a body`).to.not.equal(undefined);
    return (content?.['application/problem+json'] ?? content?.['application/json']) as Media;
  };

  /** The answer is the one the document describes for it: valid by the response's schema, equal to the example of its code. */
  function documented(path: string, method: string, answer: LiveAnswer): void {
    const where = `${method.toUpperCase()} ${path} ${answer.status} ${String(answer.body.code)}`;
    const described = media(path, method, answer.status);
    const validate = compile(resolved(described.schema, doc) as object);
    expect(validate(answer.body), `${where}: ${JSON.stringify(validate.errors)}`).to.equal(true);
    const code = String(answer.body.code);
    expect(described.examples?.[code]?.value, `${where}: the example of its code`).to.deep.equal(answer.body);
    const headers = doc.paths[path]?.[method]?.responses[String(answer.status)]?.headers ?? {};
    for (const name of ['Retry-After', 'WWW-Authenticate']) {
      if (name in headers) expect(headerOf(answer, name), `${where}: ${name}`).to.be.a('string');
    }
    seen.add(`${path} ${method} ${answer.status} ${code}`);
  }

  const ad = (options: { key?: string | null; language?: string } = {}) => {
    const query = options.language === undefined ? '' : `?language=${encodeURIComponent(options.language)}`;
    const authorization = options.key === undefined ? key : options.key;
    return fetch(`${system.baseUrl}${AD}${query}`, { headers: authorization === null ? {} : { authorization: `Bearer ${authorization}` } }).then(answerOf);
  };
  const confirm = (body: string, withKey: string | null = key) =>
    fetch(`${system.baseUrl}${DELIVERY}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(withKey === null ? {} : { authorization: `Bearer ${withKey}` }) },
      body,
    }).then(answerOf);
  const click = (url: string) => fetch(url, { redirect: 'manual', headers: { accept: 'application/json' } }).then(answerOf);
  const adOf = async (language = 'en', withKey = key): Promise<Json> =>
    waitFor(async () => {
      const answer = await ad({ language, key: withKey });
      return answer.status === 200 ? answer.body : null;
    }, { timeoutMs: 15_000, message: `an ad in ${language}` });
  const claimsOf = (campaignId: number, hoursAgo: number) => ({
    allocationId: `openapi-test-${hoursAgo}-${campaignId}`,
    campaignId,
    publisherId,
    campaignOwnerAccountId: '7201',
    publisherOwnerAccountId: '7202',
    issuedAt: new Date(Date.now() - hoursAgo * 3_600_000),
  });

  before(async () => {
    system = await startSystem();
    admin = await signedIn(system, ADMIN_ID);
    advertiser = await signedIn(system, '7201');
    owner = await signedIn(system, '7202');
    english = await activeCampaign(advertiser, admin);
    turkish = await activeCampaign(advertiser, admin, { language: 'tr' });
    const approved = await approvedPublisher(system, owner, admin);
    key = approved.server.key;
    publisherId = approved.publisher.id;
    doc = (await (await fetch(`${system.baseUrl}/api/network/openapi.json`)).json()) as Doc;
  });

  after(async () => {
    await system?.stop();
  });

  it('gives every example a body that validates against its schema', async () => {
    let examples = 0;
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (method === 'parameters') continue;
        const bodies = [
          ...Object.entries(operation.responses).flatMap(([status, response]) => Object.entries(response.content ?? {}).map(([type, m]) => [status, m, type] as const)),
          ...Object.entries(operation.requestBody?.content ?? {}).map(([type, m]) => ['request', m, type] as const),
        ];
        for (const [status, described, type] of bodies) {
          const validate = compile(resolved(described.schema, doc) as object);
          const values = [...(described.example === undefined ? [] : [described.example]), ...Object.values(described.examples ?? {}).map((e) => e.value)];
          expect(values, `${method} ${path} ${status} has an example`).to.not.deep.equal([]);
          for (const value of values) {
            expect(validate(value), `${method} ${path} ${status} ${JSON.stringify(value)}: ${JSON.stringify(validate.errors)}`).to.equal(true);
            if (status !== 'request' && Number(status) >= 400 && type.includes('json')) expect((value as Json).status).to.equal(Number(status));
            examples += 1;
          }
        }
      }
    }
    expect(examples).to.be.above(20);
  });

  it('answers a 200 Ad that validates against the schema and has the shape of the example', async () => {
    const live = await adOf('en');
    const described = media(AD, 'get', 200);
    const validate = compile(resolved(described.schema, doc) as object);
    expect(validate(live), JSON.stringify(validate.errors)).to.equal(true);
    expect(live.campaign_id).to.equal(english.id);
    const example = described.example as Json;
    expect(Object.keys(example)).to.deep.equal(Object.keys(live));
    for (const body of [example, live]) {
      expect(isWellFormedToken(body.delivery_token), 'delivery_token as the server issues it').to.equal(true);
      expect(isWellFormedToken(String(body.click_url).split('/').pop()), 'the click token as the server issues it').to.equal(true);
    }
  });

  it('answers the codes of the ad request as its responses list them', async () => {
    documented(AD, 'get', await ad({ language: 'zz' }));
    documented(AD, 'get', await ad({ key: null }));
    documented(AD, 'get', await ad({ key: 'pilot_pk_does_not_exist' }));
    const port = Number(new URL(system.baseUrl).port);
    const withBody = await sendRaw(port, {
      method: 'GET',
      path: AD,
      headers: [['host', `127.0.0.1:${port}`], ['authorization', `Bearer ${key}`], ['content-type', 'application/json'], ['content-length', '2'], ['connection', 'close']],
      body: Buffer.from('{}'),
    });
    const rawHeaders = Object.fromEntries(withBody.head.split('\r\n').slice(1).map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
    documented(AD, 'get', { status: withBody.status, headers: rawHeaders, body: JSON.parse(withBody.body) as Json });

    // A publisher whose only match is its own account's campaign: every request answers 204 and counts.
    const limited = await approvedPublisher(system, advertiser, admin);
    for (let i = 0; i < 60; i += 1) expect((await ad({ key: limited.server.key })).status).to.equal(204);
    documented(AD, 'get', await ad({ key: limited.server.key }));

    // A test key (the sandbox) with an X-Pilot-Test-Answer it does not know.
    const testKey = (await owner.post<{ key: string }>(`/api/workspace/publishers/${publisherId}/test-key`)).body.key;
    const unknownAnswer = await fetch(`${system.baseUrl}${AD}`, { headers: { authorization: `Bearer ${testKey}`, 'x-pilot-test-answer': '500' } }).then(answerOf);
    documented(AD, 'get', unknownAnswer);
  });

  it('answers the codes of the delivery confirmation as its responses list them', async () => {
    const live = await adOf('en');
    const confirmed = await confirm(JSON.stringify({ token: live.delivery_token }));
    expect(confirmed.status).to.equal(200);
    expect(confirmed.body).to.deep.equal(media(DELIVERY, 'post', 200).example);

    documented(DELIVERY, 'post', await confirm('{"token":'));
    documented(DELIVERY, 'post', await confirm(JSON.stringify({ token: 'not-a-delivery-token' })));
    documented(DELIVERY, 'post', await confirm(JSON.stringify({ token: live.delivery_token }), null));
    documented(DELIVERY, 'post', await confirm(JSON.stringify({ token: live.delivery_token }), 'pilot_pk_does_not_exist'));
    documented(DELIVERY, 'post', await confirm(JSON.stringify({ token: issueToken(system.infra.tokenSecret, 'delivery', { ...claimsOf(english.id, 0), publisherId: publisherId + 1000 }) })));
    documented(DELIVERY, 'post', await confirm(JSON.stringify({ token: issueToken(system.infra.tokenSecret, 'delivery', claimsOf(english.id, 2)) })));
    documented(DELIVERY, 'post', await confirm(JSON.stringify({ token: 'x'.repeat(200) })));
    const notJson = await fetch(`${system.baseUrl}${DELIVERY}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'text/plain' },
      body: JSON.stringify({ token: live.delivery_token }),
    }).then(answerOf);
    documented(DELIVERY, 'post', notJson);

    // A test key (the sandbox) with an X-Pilot-Test-Answer a confirmation does not force.
    const testKey = (await owner.post<{ key: string }>(`/api/workspace/publishers/${publisherId}/test-key`)).body.key;
    const testAd = (await fetch(`${system.baseUrl}${AD}?language=en`, { headers: { authorization: `Bearer ${testKey}` } }).then(answerOf)).body;
    const unknownAnswer = await fetch(`${system.baseUrl}${DELIVERY}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${testKey}`, 'content-type': 'application/json', 'x-pilot-test-answer': '204' },
      body: JSON.stringify({ token: testAd.delivery_token }),
    }).then(answerOf);
    documented(DELIVERY, 'post', unknownAnswer);
  });

  it('answers the codes of the click link as its responses list them', async () => {
    documented(CLICK, 'get', await click(`${system.baseUrl}/api/network/click/not-a-token`));
    const expired = issueToken(system.infra.tokenSecret, 'click', claimsOf(english.id, 2));
    documented(CLICK, 'get', await click(`${system.baseUrl}/api/network/click/${expired}`));

    const port = Number(new URL(system.baseUrl).port);
    const withBody = await sendRaw(port, {
      method: 'GET',
      path: '/api/network/click/not-a-token',
      headers: [['host', `127.0.0.1:${port}`], ['accept', 'application/json'], ['content-length', '2'], ['connection', 'close']],
      body: Buffer.from('{}'),
    });
    documented(CLICK, 'get', { status: withBody.status, headers: {}, body: JSON.parse(withBody.body) as Json });

    // The campaign paused: campaign_inactive.
    const turkishAd = await adOf('tr');
    expect(turkishAd.campaign_id).to.equal(turkish.id);
    expect((await advertiser.post(`/api/workspace/campaigns/${turkish.id}/pause`)).status).to.equal(200);
    const inactive = await waitFor(async () => {
      const answer = await click(String(turkishAd.click_url));
      return answer.status === 410 ? answer : null;
    }, { message: 'the paused campaign’s link to answer 410' });
    documented(CLICK, 'get', inactive);

    // The publisher paused: publisher_inactive for its links, publisher_not_approved for its key.
    const other = await approvedPublisher(system, owner, admin);
    const otherAd = await adOf('en', other.server.key);
    expect((await admin.post(`/api/workspace/publishers/${other.publisher.id}/pause`)).status).to.equal(200);
    const gone = await waitFor(async () => {
      const answer = await click(String(otherAd.click_url));
      return answer.status === 410 ? answer : null;
    }, { message: 'the paused publisher’s link to answer 410' });
    documented(CLICK, 'get', gone);
    documented(AD, 'get', await ad({ key: other.server.key }));
    documented(DELIVERY, 'post', await confirm(JSON.stringify({ token: otherAd.delivery_token }), other.server.key));
  });

  it('describes the 503 every service answers for an infrastructure fault', () => {
    const body = problems.unavailable().toBody(system.baseUrl) as unknown as Json;
    for (const [path, method] of [[AD, 'get'], [DELIVERY, 'post'], [CLICK, 'get']] as const) {
      documented(path, method, { status: 503, headers: { 'retry-after': problems.unavailable().headers['Retry-After'] ?? '' }, body });
    }
  });

  it('answers 504 from the gateway when the service does not answer in time', async () => {
    const silent = await localServer(() => undefined);
    const logger = createLogger({ service: 'gateway', level: 'silent' });
    const gateway = await startGateway(
      gatewayConfig({
        NODE_ENV: 'test',
        GATEWAY_PORT: '0',
        INTERNAL_SECRET: system.infra.internalSecret,
        PUBLIC_BASE_URL: system.baseUrl,
        ...Object.fromEntries(['IDENTITY', 'CAMPAIGN', 'ALLOCATION', 'TRACKING', 'PLACEMENT', 'WEB'].map((name) => [`${name}_URLS`, silent.url])),
        UPSTREAM_TIMEOUT_MS: '300',
      }),
      logger,
    );
    try {
      documented(AD, 'get', await fetch(`${gateway.url}${AD}`, { headers: { authorization: `Bearer ${key}` } }).then(answerOf));
      documented(DELIVERY, 'post', await fetch(`${gateway.url}${DELIVERY}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{"token":"t"}' }).then(answerOf));
      documented(CLICK, 'get', await fetch(`${gateway.url}/api/network/click/t`, { redirect: 'manual' }).then(answerOf));
    } finally {
      await gateway.stop();
      await silent.close();
    }
  });

  it('answers 502 from the gateway when the service is down', async () => {
    for (const replica of [...system.replicasOf('allocation'), ...system.replicasOf('tracking')]) {
      await replica.running?.stop();
      replica.running = null;
    }
    documented(AD, 'get', await waitFor(async () => {
      const answer = await ad();
      return answer.status === 502 ? answer : null;
    }, { message: 'a 502 for the ad request' }));
    documented(DELIVERY, 'post', await confirm('{"token":"t"}'));
    documented(CLICK, 'get', await click(`${system.baseUrl}/api/network/click/t`));
  });

  it('lists in each response exactly the codes the routes answered', () => {
    const listed = new Set<string>();
    for (const [path, method] of [[AD, 'get'], [DELIVERY, 'post'], [CLICK, 'get']] as const) {
      for (const [status, response] of Object.entries(doc.paths[path]?.[method]?.responses ?? {})) {
        const schema = resolved(response.content?.['application/problem+json']?.schema, doc) as { allOf?: { properties?: { code?: { enum?: string[] } } }[] } | undefined;
        for (const code of schema?.allOf?.flatMap((part) => part.properties?.code?.enum ?? []) ?? []) listed.add(`${path} ${method} ${status} ${code}`);
      }
    }
    expect([...seen].sort()).to.deep.equal([...listed].sort());
  });
});
