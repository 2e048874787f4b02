/**
 * Answers that explain themselves, through the gateway of the whole system: a 204 says why in
 * Pilot-No-Fill-Reason; every problem's type is the site's page of its code; one rule for methods a network
 * path does not serve (405 with Allow); a GET with a body is refused with Cache-Control: no-store and no
 * RateLimit headers; no bearer key is missing_key, a refused one carries error="invalid_token"; every
 * answer carries X-Request-Id; the pages the types point to are pages of the site.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import { signedIn, type Browser } from '../e2e/support/clients';
import { sendRaw } from '../e2e/support/raw-http';
import { activeCampaign, approvedPublisher, type Campaign } from '../e2e/support/scenario';
import { ADMIN_ID, startSystem, type System } from '../e2e/support/system';
import { isWellFormedToken } from '../../packages/tokens/src';

const run = promisify(execFile);
const GUIDE = path.resolve(__dirname, '../../docs/publishers.md');

/** The fenced blocks of a language in the guide, in order. */
function blocksOf(markdown: string, language: string): string[] {
  return [...markdown.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((match) => match[1] ?? '');
}

interface Answer {
  status: number;
  headers: Headers;
  body: Record<string, unknown>;
}

async function answerOf(response: Response): Promise<Answer> {
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text && /json/.test(response.headers.get('content-type') ?? '') ? JSON.parse(text) : {} };
}

describe('answers that explain themselves, through the gateway', function () {
  this.timeout(180_000);
  let system: System;
  let admin: Browser;
  let advertiser: Browser;
  let owner: Browser;
  let botKey: string;
  let tr: Campaign;

  const call = (path: string, init: RequestInit = {}) => fetch(`${system.baseUrl}${path}`, { redirect: 'manual', ...init }).then(answerOf);
  const adFor = (key: string, language = 'en') => call(`/api/network/ad?language=${language}`, { headers: { authorization: `Bearer ${key}` } });
  const pageOf = (code: string) => `${system.baseUrl}/guide/errors#${code}`;

  before(async () => {
    system = await startSystem();
    admin = await signedIn(system, ADMIN_ID);
    advertiser = await signedIn(system, '6101');
    owner = await signedIn(system, '6102');
    botKey = (await approvedPublisher(system, owner, admin)).server.key;
  });

  after(async () => {
    await system?.stop();
  });

  it('says why a 204 has no ad: nothing active, nothing of the format, nothing in the language, only own campaigns', async () => {
    const none = await adFor(botKey);
    expect(none.status).to.equal(204);
    expect(none.headers.get('pilot-no-fill-reason')).to.equal('no_active_campaign');

    await activeCampaign(advertiser, admin, { format: 'channel', language: 'all' });
    const format = await waitFor(async () => {
      const answer = await adFor(botKey);
      return answer.headers.get('pilot-no-fill-reason') === 'no_active_campaign' ? null : answer;
    }, { message: 'the channel campaign in the cache', intervalMs: 200 });
    expect(format.status).to.equal(204);
    expect(format.headers.get('pilot-no-fill-reason')).to.equal('no_campaign_for_format');

    tr = await activeCampaign(advertiser, admin, { format: 'bot', language: 'tr' });
    const language = await waitFor(async () => {
      const answer = await adFor(botKey, 'de');
      return answer.headers.get('pilot-no-fill-reason') === 'no_campaign_for_format' ? null : answer;
    }, { message: 'the bot campaign in the cache', intervalMs: 200 });
    expect(language.headers.get('pilot-no-fill-reason')).to.equal('no_campaign_for_language');
    expect(language.headers.get('cache-control')).to.contain('no-store');

    await activeCampaign(owner, admin, { format: 'bot', language: 'de' });
    const own = await waitFor(async () => {
      const answer = await adFor(botKey, 'de');
      return answer.headers.get('pilot-no-fill-reason') === 'no_campaign_for_language' ? null : answer;
    }, { message: 'the own campaign in the cache', intervalMs: 200 });
    expect(own.status).to.equal(204);
    expect(own.headers.get('pilot-no-fill-reason')).to.equal('own_campaigns_only');
    expect((await adFor(botKey, 'tr')).status, 'a 200 carries no reason').to.equal(200);
    expect((await adFor(botKey, 'tr')).headers.get('pilot-no-fill-reason')).to.equal(null);
  });

  it('gives every problem, whichever service answers it, the site\'s page of its code as type', async () => {
    const answers = [
      await call('/api/network/ad'), // allocation: missing_key
      await call('/api/network/delivery', { method: 'POST', headers: { authorization: `Bearer ${botKey}`, 'content-type': 'application/json' }, body: '{' }), // tracking: invalid_json
      await call('/api/nothing-here'), // gateway: route_not_found
      await call('/api/workspace/campaigns'), // gateway: not_signed_in
      await call('/api/site/placements/no-such-slot'), // placement
    ];
    const campaign = await advertiser.post('/api/workspace/campaigns', {}); // campaign: validation_failed
    for (const answer of [...answers, { status: campaign.status, body: campaign.body as Record<string, unknown> }]) {
      expect(answer.status).to.be.at.least(400);
      expect(answer.body.type, String(answer.body.code)).to.equal(pageOf(String(answer.body.code)));
    }
    const page = await fetch(`${system.baseUrl}/guide/errors`);
    expect(page.status, 'the page the types point to').to.equal(200);
    expect(page.headers.get('content-type')).to.contain('text/html');
  });

  it('answers a method a network path does not serve with 405 method_not_allowed and Allow, on every network path', async () => {
    const cases: [string, string, string][] = [
      ['POST', '/api/network/ad', 'GET'],
      ['OPTIONS', '/api/network/ad', 'GET'],
      ['DELETE', '/api/network/delivery', 'POST'],
      ['GET', '/api/network/delivery', 'POST'],
      ['POST', '/api/network/click/AkNnFT0xnoFS', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const answer = await call(path, { method, headers: { authorization: `Bearer ${botKey}` } });
      expect(answer.status, `${method} ${path}`).to.equal(405);
      expect(answer.headers.get('allow'), `${method} ${path}`).to.equal(allow);
      expect(answer.headers.get('content-type')).to.contain('application/problem+json');
      expect(answer.body).to.include({ code: 'method_not_allowed', type: pageOf('method_not_allowed') });
    }
  });

  it('refuses a GET with a body with 400 body_not_allowed, Cache-Control: no-store and no RateLimit headers (nothing used up)', async () => {
    const port = Number(new URL(system.baseUrl).port);
    for (const path of ['/api/network/ad?language=en', '/api/network/click/AkNnFT0xnoFS']) {
      const answer = await sendRaw(port, {
        method: 'GET',
        path,
        headers: [['Authorization', `Bearer ${botKey}`], ['Content-Type', 'application/json']],
        body: Buffer.from('{"language":"en"}'),
      });
      expect(answer.status, path).to.equal(400);
      expect(JSON.parse(answer.body)).to.include({ code: 'body_not_allowed' });
      expect(answer.head.toLowerCase(), path).to.contain('cache-control: no-store');
      expect(answer.head.toLowerCase(), path).to.not.contain('ratelimit-');
      expect(answer.head.toLowerCase(), path).to.match(/\r\nx-request-id: \S+/);
    }
  });

  it('answers missing_key for another scheme than Bearer, and adds error="invalid_token" for a refused bearer key', async () => {
    const basic = await call('/api/network/ad', { headers: { authorization: `Basic ${botKey}` } });
    expect(basic.status).to.equal(401);
    expect(basic.body.code).to.equal('missing_key');
    expect(basic.headers.get('www-authenticate')).to.equal('Bearer realm="pilot-network"');
    const wrong = await call('/api/network/delivery', {
      method: 'POST',
      headers: { authorization: `Bearer ${botKey.slice(0, -1)}${botKey.endsWith('x') ? 'y' : 'x'}`, 'content-type': 'application/json' },
      body: '{"token":"x"}',
    });
    expect(wrong.body.code).to.equal('invalid_key');
    expect(wrong.headers.get('www-authenticate')).to.equal('Bearer realm="pilot-network", error="invalid_token", error_description="invalid_key"');
  });

  it('puts X-Request-Id on every answer, each its own', async () => {
    const answers = [await adFor(botKey, 'tr'), await adFor(botKey, 'zz'), await call('/api/network/ad'), await call('/api/network/ad', { method: 'POST' })];
    const ids = answers.map((answer) => answer.headers.get('x-request-id'));
    for (const id of ids) expect(id).to.be.a('string').and.not.equal('');
    expect(new Set(ids).size).to.equal(ids.length);
  });

  it('keeps the guide and the documents true to the behaviour: key paths, runnable curls, real tokens, open bodies, the text/html dead link, declared headers, 400s that count', async () => {
    const guide = await readFile(GUIDE, 'utf8');
    // The live key's call, named in the guide, is the one that answers the key.
    expect(guide).to.contain('`POST /api/workspace/publishers/{id}/keys` answers `201 {key, keyCreatedAt, previousKeyExpiresAt}`');
    // The guide's curls run as written once PILOT and the keys are set (no literal {base_url}).
    const testKey = (await owner.post<{ key: string }>(`/api/workspace/publishers/${(await owner.get<{ items: { id: number }[] }>('/api/workspace/publishers')).body.items[0]?.id}/test-key`)).body.key;
    const curls = [...blocksOf(guide, 'sh'), ...blocksOf(guide, 'bash')].filter((block) => block.includes('curl') && block.includes('/api/network/ad'));
    expect(curls.length).to.be.at.least(2);
    for (const block of curls) {
      expect(block, 'no placeholder the shell cannot fill').to.not.contain('{base_url}');
      const script = block.replace(/^export .*$/m, '').replace(/^#.*$/gm, '');
      const { stdout } = await run('bash', ['-c', script], { env: { ...process.env, PILOT: system.baseUrl, KEY: botKey, PILOT_TEST_KEY: testKey } });
      expect(stdout, block).to.match(/^HTTP\/1\.1 (200|204|503) /m);
    }
    // Example tokens are shaped as real ones (no dot).
    for (const [, token] of guide.matchAll(/"delivery_token": "([^"]+)"/g)) expect(isWellFormedToken(token ?? ''), token).to.equal(true);

    const document = (await call('/api/network/openapi.json')).body as { components: { schemas: Record<string, Record<string, unknown>>; headers: Record<string, unknown> }; paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown>; headers?: Record<string, unknown> }> }>> };
    // Open bodies: the server takes extra fields, and the schemas do not forbid them.
    for (const name of ['Ad', 'DeliveryConfirmation', 'DeliveryConfirmed']) expect(document.components.schemas[name], name).to.not.have.property('additionalProperties');
    const ad = await adFor(botKey, 'tr');
    const lenient = await call('/api/network/delivery', {
      method: 'POST',
      headers: { authorization: `Bearer ${botKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ token: ad.body.delivery_token, note: 'an extra field' }),
    });
    expect(lenient.status).to.equal(200);
    // The click's dead link: a browser gets text/html, which the document declares.
    const dead = await fetch(`${system.baseUrl}/api/network/click/not-a-token`, { headers: { accept: 'text/html,*/*;q=0.8' } });
    expect(dead.status).to.equal(404);
    expect(dead.headers.get('content-type')).to.contain('text/html');
    const clickResponses = document.paths['/api/network/click/{token}']?.get?.responses ?? {};
    expect(Object.keys(clickResponses['404']?.content ?? {})).to.include('text/html');
    expect(Object.keys(clickResponses['410']?.content ?? {})).to.include('text/html');
    // Headers the answers carry are declared.
    expect(document.components.headers).to.include.keys('X-Pilot-Test', 'Pilot-No-Fill-Reason', 'X-Request-Id');
    expect(document.paths['/api/network/ad']?.get?.responses['204']?.headers).to.include.keys('Pilot-No-Fill-Reason', 'X-Request-Id');
    // A 400 uses up one of the minute's 60, as the guide says.
    const before = Number((await adFor(botKey, 'tr')).headers.get('ratelimit-remaining'));
    const refused = await adFor(botKey, 'zz');
    expect(refused.status).to.equal(400);
    expect(Number(refused.headers.get('ratelimit-remaining'))).to.equal(before - 1);
    expect(guide).to.contain('Every answer of the ad endpoint uses up one, the 400s');
    // The workspace document says what a campaign transition answers: propagation, and 202 while pending.
    const workspace = (await call('/api/workspace/openapi.json')).body as { paths: Record<string, Record<string, { responses: Record<string, unknown> }>>; components: { schemas: Record<string, unknown> } };
    expect(workspace.paths['/api/workspace/campaigns/{id}/pause']?.post?.responses).to.include.keys('200', '202');
    expect(JSON.stringify(workspace.components.schemas.CampaignTransitionAnswer)).to.contain('"propagation"');
    const paused = await advertiser.post<{ propagation: string }>(`/api/workspace/campaigns/${tr.id}/pause`);
    expect([200, 202]).to.include(paused.status);
    expect(paused.body.propagation).to.equal(paused.status === 200 ? 'done' : 'pending');
  });
});
