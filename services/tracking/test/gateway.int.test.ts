import { createHash } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { reservedPort, ManualClock, testInfra, waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import request from 'supertest';
import type { RunningTracking } from '../src/start';
import { activeCampaign, allocate, campaignSnapshot, startTracking, TestWorld, type CampaignSnapshot } from './support';

/**
 * The network API and the stats as clients reach them: through the real gateway (run as its own process,
 * since services never import each other), which signs forwarded calls and resolves sessions with a
 * stand-in for publisher-identity.
 */
describe('tracking through the gateway', () => {
  const infra = testInfra();
  const clock = new ManualClock();
  const world = new TestWorld(infra);
  const ids = { campaignId: 91, publisherId: 92, campaignOwner: '9301', publisherOwner: '9302' };
  let snapshot: CampaignSnapshot;
  let tracking: RunningTracking;
  let identity: Server;
  let gateway: ChildProcess;
  let gatewayUrl: string;
  let key: string;

  before(async function () {
    this.timeout(60_000);
    await world.ready();
    snapshot = await campaignSnapshot([activeCampaign(ids.campaignId, ids.campaignOwner)]);
    tracking = await startTracking(infra, snapshot.url, { clock });
    key = await world.approvedPublisher(ids.publisherId, ids.publisherOwner);
    identity = createServer((req, res) => {
      const session = req.headers['x-pilot-session'];
      res.setHeader('content-type', 'application/json');
      if (req.url === '/internal/sessions/resolve' && session === 'owner-session-0123456789') {
        res.end(JSON.stringify({ accountId: ids.campaignOwner, displayName: 'owner', admin: false }));
      } else if (req.url === '/internal/sessions/resolve' && session === 'stranger-session-0123456789') {
        res.end(JSON.stringify({ accountId: '9399', displayName: 'stranger', admin: false }));
      } else if (req.url === '/livez' || req.url === '/readyz') {
        res.end('{}');
      } else {
        res.statusCode = 401;
        res.end('{}');
      }
    });
    await new Promise<void>((done) => identity.listen(0, '127.0.0.1', done));
    const port = await reservedPort();
    gatewayUrl = `http://127.0.0.1:${port}`;
    const unused = 'http://127.0.0.1:1';
    gateway = spawn(process.execPath, ['-r', 'tsx/cjs', 'services/gateway/src/main.ts'], {
      cwd: resolve(__dirname, '../../..'),
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        GATEWAY_PORT: String(port),
        INTERNAL_SECRET: infra.internalSecret,
        PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
        IDENTITY_URLS: `http://127.0.0.1:${(identity.address() as AddressInfo).port}`,
        CAMPAIGN_URLS: unused,
        ALLOCATION_URLS: unused,
        TRACKING_URLS: tracking.url,
        PLACEMENT_URLS: unused,
        WEB_URLS: unused,
        REDIS_URL: infra.redisUrl,
        REDIS_KEY_PREFIX: infra.redisPrefix,
      },
      stdio: 'ignore',
    });
    await waitFor(async () => (await fetch(`${gatewayUrl}/livez`)).ok, { timeoutMs: 45_000, message: 'gateway did not start' });
  });

  after(async () => {
    if (gateway && gateway.exitCode === null) {
      const exited = new Promise((done) => gateway.once('exit', done));
      gateway.kill('SIGTERM');
      await exited;
    }
    await tracking?.stop();
    await snapshot?.close();
    await new Promise<void>((done) => (identity ? identity.close(() => done()) : done()));
    await world.close();
  });

  it('confirms a delivery, redirects GET and HEAD, and shows the totals, their breakdown and their hours to the owner only', async () => {
    const a = allocate(infra, clock, ids);
    await world.countAllocation(a.claims);

    const tooLarge = await request(gatewayUrl)
      .post('/api/network/delivery')
      .set('authorization', `Bearer ${key}`)
      .set('content-type', 'application/json')
      .send(JSON.stringify({ token: a.deliveryToken }).padEnd(201, ' '));
    expect(tooLarge.status).to.equal(413);
    const confirmed = await request(gatewayUrl)
      .post('/api/network/delivery')
      .set('authorization', `Bearer ${key}`)
      .set('content-type', 'application/json')
      .send(JSON.stringify({ token: a.deliveryToken }).padEnd(200, ' '));
    expect(confirmed.status).to.equal(200);
    expect(confirmed.body).to.deep.equal({ status: 'confirmed', first_confirmation: true });
    const noKey = await request(gatewayUrl).post('/api/network/delivery').send({ token: a.deliveryToken });
    expect(noKey.status).to.equal(401);

    const head = await request(gatewayUrl).head(a.clickPath).redirects(0);
    expect(head.status).to.equal(302);
    const preview = await request(gatewayUrl).get(a.clickPath).set('user-agent', 'TelegramBot (like TwitterBot)').redirects(0);
    expect(preview.status).to.equal(302);
    const clicked = await request(gatewayUrl).get(a.clickPath).set('user-agent', 'Mozilla/5.0 Firefox/128.0').redirects(0);
    expect(clicked.status).to.equal(302);
    expect(clicked.headers.location).to.equal(`https://advertiser.example/c/${ids.campaignId}`);
    expect((await request(gatewayUrl).get('/api/network/click/not-a-token').redirects(0)).status).to.equal(404);

    let last = '';
    const owner = await waitFor(
      async () => {
        const answer = await request(gatewayUrl).get(`/api/workspace/stats?campaignId=${ids.campaignId}`).set('cookie', 'pilot_session=owner-session-0123456789');
        last = `${answer.status} ${JSON.stringify(answer.body)}`;
        return answer.status === 200 && answer.body.adRequests === 1 ? answer : null;
      },
      { message: "owner's stats never showed the allocation" },
    ).catch((error: Error) => {
      throw new Error(`${error.message}; last answer: ${last}`);
    });
    expect(owner.body).to.include({ adRequests: 1, confirmedDeliveries: 1, clickedLinks: 1 });
    const stranger = await request(gatewayUrl).get('/api/workspace/stats').set('cookie', 'pilot_session=stranger-session-0123456789').expect(200);
    expect(stranger.body).to.include({ adRequests: 0, confirmedDeliveries: 0, clickedLinks: 0 });
    const anonymous = await request(gatewayUrl).get('/api/workspace/stats');
    expect(anonymous.status).to.equal(401);

    const breakdown = await request(gatewayUrl).get('/api/workspace/stats/breakdown?by=campaign').set('cookie', 'pilot_session=owner-session-0123456789').expect(200);
    expect(breakdown.body).to.deep.equal({ items: [{ id: ids.campaignId, adRequests: 1, confirmedDeliveries: 1, clickedLinks: 1, unfilledAdRequests: 0 }], nextCursor: null });
    const strangerBreakdown = await request(gatewayUrl).get('/api/workspace/stats/breakdown?by=publisher').set('cookie', 'pilot_session=stranger-session-0123456789').expect(200);
    expect(strangerBreakdown.body).to.deep.equal({ items: [], nextCursor: null });
    const badCursor = await request(gatewayUrl).get('/api/workspace/stats/breakdown?by=campaign&cursor=x').set('cookie', 'pilot_session=owner-session-0123456789');
    expect([badCursor.status, badCursor.body.code]).to.deep.equal([400, 'invalid_cursor']);
    expect((await request(gatewayUrl).get('/api/workspace/stats/breakdown?by=campaign')).status).to.equal(401);
    const today = clock.now().toISOString().slice(0, 10);
    const hourly = await request(gatewayUrl).get(`/api/workspace/stats?granularity=hour&from=${today}&to=${today}`).set('cookie', 'pilot_session=owner-session-0123456789').expect(200);
    expect(hourly.body.hours).to.have.length(24);
    expect(hourly.body).to.include({ adRequests: 1, confirmedDeliveries: 1, clickedLinks: 1 });
  });

  describe('a dead click link', () => {
    const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
    const expiredPath = () => allocate(infra, new Date(clock.now().getTime() - 3601_000), ids).clickPath;
    const unknownPath = '/api/network/click/not-a-token';

    /** A page that renders as it is under its own policy: its one style allowed by hash; no script, nothing from elsewhere. */
    function expectSelfContainedPage(answer: request.Response, heading: string): void {
      expect(answer.headers['content-type']).to.equal('text/html; charset=utf-8');
      expect(answer.headers['cache-control']).to.equal('no-store');
      expect(answer.headers.vary).to.match(/\bAccept\b/i);
      const policy = String(answer.headers['content-security-policy']);
      expect(policy).to.include("default-src 'none'").and.not.include('script-src').and.not.include("'unsafe-inline'");
      const style = /<style>([^<]*)<\/style>/.exec(answer.text)?.[1] ?? '';
      expect(style, 'the page styles itself').to.include('prefers-color-scheme');
      expect(policy).to.include(`style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`);
      expect(answer.text).to.match(/^<!doctype html>/);
      expect(answer.text).to.include(`<h1>${heading}</h1>`);
      expect(answer.text).to.include('<a href="/">');
      expect(answer.text).to.include('name="viewport"');
      expect(answer.text).to.not.match(/<script|<link|<img|<iframe|\sstyle=|\ssrc=|https?:\/\//i);
    }

    it('answers a browser 410 "This link has expired" as a styled page for an expired link (HEAD too)', async () => {
      const path = expiredPath();
      const page = await request(gatewayUrl).get(path).set('accept', BROWSER_ACCEPT).set('user-agent', 'Mozilla/5.0 Firefox/128.0').redirects(0);
      expect(page.status).to.equal(410);
      expectSelfContainedPage(page, 'This link has expired');
      expect(page.text).to.include('work for one hour');
      const head = await request(gatewayUrl).head(path).set('accept', BROWSER_ACCEPT).redirects(0);
      expect(head.status).to.equal(410);
      expect(head.headers['content-type']).to.equal('text/html; charset=utf-8');
    });

    it('answers a browser 404 "This link is not valid" as a page of the site for an unknown link', async () => {
      const page = await request(gatewayUrl).get(unknownPath).set('accept', 'text/html').redirects(0);
      expect(page.status).to.equal(404);
      expectSelfContainedPage(page, 'This link is not valid');
    });

    it('keeps problem+json for any client that does not prefer HTML', async () => {
      const path = expiredPath();
      for (const accept of [undefined, '*/*', 'application/json', 'application/problem+json', 'application/json, text/html;q=0.5']) {
        const call = request(gatewayUrl).get(path).redirects(0);
        const answer = await (accept === undefined ? call : call.set('accept', accept));
        expect(answer.status, String(accept)).to.equal(410);
        expect(answer.headers['content-type'], String(accept)).to.equal('application/problem+json; charset=utf-8');
        expect(JSON.parse(answer.text), String(accept)).to.include({ status: 410, code: 'link_expired' });
        expect(answer.headers.vary).to.match(/\bAccept\b/i);
      }
      const unknown = await request(gatewayUrl).get(unknownPath).set('accept', '*/*').redirects(0);
      expect(unknown.status).to.equal(404);
      expect(JSON.parse(unknown.text)).to.include({ status: 404, code: 'token_not_found' });
    });
  });
});
