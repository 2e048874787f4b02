import { request as httpRequest } from 'node:http';
import { verifyInternalCall, listen } from '@pilot/platform';
import { expect } from 'chai';
import express, { type Request } from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import request from 'supertest';
import { waitFor } from '@pilot/testkit';
import { loadConfig } from '../src/config';
import { SECRET, standIn, startGateway, type StandIn } from './support';

describe('gateway', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    while (cleanup.length > 0) await cleanup.pop()?.();
  });

  async function withStandIn(handler: Parameters<typeof standIn>[0]): Promise<StandIn> {
    const upstream = await standIn(handler);
    cleanup.push(upstream.close);
    return upstream;
  }

  async function gatewayFor(urls: Record<string, string>, extra: Record<string, string> = {}) {
    const gateway = await startGateway(urls, extra);
    cleanup.push(gateway.stop);
    return gateway;
  }

  it('answers 502 problem+json when the upstream is down', async () => {
    const gateway = await gatewayFor({ allocation: 'http://127.0.0.1:1' });
    const response = await request(gateway.url).get('/api/network/ad');
    expect(response.status).to.equal(502);
    expect(response.headers['content-type']).to.match(/^application\/problem\+json/);
    expect(response.body).to.include({ status: 502, code: 'bad_gateway' });
  });

  it('answers 504 problem+json when the upstream is too slow', async () => {
    const slow = await withStandIn((_req, res) => {
      setTimeout(() => res.end('late'), 1500);
    });
    const gateway = await gatewayFor({ allocation: slow.url }, { UPSTREAM_TIMEOUT_MS: '200' });
    const response = await request(gateway.url).get('/api/network/ad');
    expect(response.status).to.equal(504);
    expect(response.body).to.include({ status: 504, code: 'gateway_timeout' });
  });

  it('forwards with a signature the service verifies, and drops forged internal headers', async () => {
    let verified: ReturnType<typeof verifyInternalCall> = null;
    const upstream = await withStandIn((req, res) => {
      const asExpress = Object.assign(req, { originalUrl: req.url ?? '/' }) as unknown as Request;
      verified = verifyInternalCall(asExpress, SECRET);
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
    const gateway = await gatewayFor({ allocation: upstream.url });
    await request(gateway.url)
      .get('/api/network/ad?language=en')
      .set('x-pilot-account', '42')
      .set('x-pilot-admin', '1')
      .set('x-pilot-internal', 'v1.1.forged')
      .expect(200);
    expect(verified).to.not.equal(null);
    expect(verified!.principal).to.equal(null);
    const forwarded = upstream.requests[0]!;
    expect(forwarded.headers['x-pilot-account']).to.equal(undefined);
    expect(forwarded.headers['x-pilot-admin']).to.equal('0');
    expect(forwarded.headers['x-request-id']).to.be.a('string');
  });

  it('routes each path family to its service and never routes internal paths', async () => {
    const seen: Record<string, string[]> = {};
    const upstreams: Record<string, string> = {};
    for (const name of ['allocation', 'tracking', 'placement', 'web']) {
      const upstream = await withStandIn((req, res) => {
        (seen[name] ??= []).push(req.url ?? '');
        res.end('ok');
      });
      upstreams[name] = upstream.url;
    }
    const gateway = await gatewayFor(upstreams);
    await request(gateway.url).get('/api/network/ad').expect(200);
    await request(gateway.url).get('/api/network/openapi.json').expect(200);
    await request(gateway.url).post('/api/network/delivery').send({ token: 'x' }).expect(200);
    await request(gateway.url).get('/api/network/click/abc').expect(200);
    await request(gateway.url).get('/api/site/placements/home-feature').expect(200);
    await request(gateway.url).get('/').expect(200);
    await request(gateway.url).get('/internal/campaigns/active').expect(404);
    await request(gateway.url).get('/api/unknown').expect(404);
    expect(seen.allocation).to.deep.equal(['/api/network/ad', '/api/network/openapi.json']);
    expect(seen.tracking).to.deep.equal(['/api/network/delivery', '/api/network/click/abc']);
    expect(seen.placement).to.deep.equal(['/api/site/placements/home-feature']);
    expect(seen.web).to.deep.equal(['/']);
  });

  it('refuses workspace and auth writes from another origin or none with 403 origin_refused', async () => {
    const upstream = await withStandIn((_req, res) => res.end('{}'));
    const gateway = await gatewayFor({ identity: upstream.url, campaign: upstream.url, placement: upstream.url, tracking: upstream.url, notification: upstream.url });
    for (const path of ['/api/workspace/campaigns', '/api/workspace/publishers', '/api/workspace/placements/home-feature', '/api/workspace/notifications', '/api/auth/login', '/api/auth/logout']) {
      const foreign = await request(gateway.url).post(path).set('origin', 'https://evil.example').send({});
      expect(foreign.status, path).to.equal(403);
      expect(foreign.body.code).to.equal('origin_refused');
      const missing = await request(gateway.url).post(path).send({});
      expect(missing.status, path).to.equal(403);
    }
    expect(upstream.requests).to.have.length(0);
  });

  it('answers 401 for workspace calls without a session and does not forward them', async () => {
    const identity = await withStandIn((_req, res) => {
      res.statusCode = 401;
      res.end('{}');
    });
    const campaign = await withStandIn((_req, res) => res.end('{}'));
    const notification = await withStandIn((_req, res) => res.end('{}'));
    const gateway = await gatewayFor({ identity: identity.url, campaign: campaign.url, notification: notification.url });
    for (const path of ['/api/workspace/campaigns', '/api/workspace/notifications']) {
      const none = await request(gateway.url).get(path);
      expect(none.status, path).to.equal(401);
      expect(none.body.code).to.equal('not_signed_in');
      const unknown = await request(gateway.url).get(path).set('cookie', 'pilot_session=abcdefghijklmnopqrstuvwxyz');
      expect(unknown.status, path).to.equal(401);
    }
    expect(campaign.requests).to.have.length(0);
    expect(notification.requests).to.have.length(0);
  });

  it('sends traffic to the remaining replica when one is down', async () => {
    const alive = await withStandIn((_req, res) => res.end('alive'));
    const gateway = await gatewayFor({ allocation: `http://127.0.0.1:1,${alive.url}` });
    for (let i = 0; i < 6; i += 1) {
      const response = await request(gateway.url).get('/api/network/ad');
      expect(response.status).to.equal(200);
      expect(response.text).to.equal('alive');
    }
  });

  it('sends no traffic to a replica that listens but is not ready yet (a restarted one loading its snapshot)', async () => {
    const loading = await withStandIn((req, res) => {
      res.statusCode = req.url === '/readyz' ? 503 : 200;
      res.end('loading');
    });
    const ready = await withStandIn((_req, res) => res.end('ready'));
    const gateway = await gatewayFor({ allocation: `${loading.url},${ready.url}` });
    // Two probes seen: the first one's answer has been applied.
    await waitFor(() => loading.requests.filter((req) => req.url === '/readyz').length >= 2, { timeoutMs: 5000 });
    const answers: string[] = [];
    for (let i = 0; i < 6; i += 1) answers.push((await request(gateway.url).get('/api/network/ad')).text);
    expect(answers).to.deep.equal(Array(6).fill('ready'));
  });

  it('sets the page security headers', async () => {
    const web = await withStandIn((_req, res) => res.end('<!doctype html>'));
    const gateway = await gatewayFor({ web: web.url });
    const response = await request(gateway.url).get('/');
    const csp = String(response.headers['content-security-policy']);
    expect(csp).to.include("script-src 'self'");
    expect(csp).to.not.include('unsafe-inline');
    expect(csp).to.include("frame-ancestors 'none'");
    expect(response.headers['x-content-type-options']).to.equal('nosniff');
  });

  it('serves /metrics and each upstream replica\'s readiness on the operator port only; the public /readyz says ready or not', async () => {
    const ready = await withStandIn((_req, res) => res.end('{}'));
    const gateway = await gatewayFor({ identity: ready.url, campaign: ready.url, allocation: ready.url, tracking: ready.url, placement: ready.url, notification: ready.url });
    const publicReady = await request(gateway.url).get('/readyz').expect(200);
    expect(publicReady.body).to.deep.equal({ status: 'ready' });
    // Neither the gateway's metrics nor a service's (web's, which every other path reaches) from outside.
    for (const path of ['/metrics', '/metrics/', '/livez/x']) {
      const refused = await request(gateway.url).get(path).expect(404);
      expect(refused.body).to.include({ code: 'route_not_found' });
    }
    expect(ready.requests.map((forwarded) => forwarded.url)).to.not.include('/metrics');
    const detailed = await request(gateway.operatorUrl).get('/readyz').expect(200);
    expect(detailed.body.checks).to.deep.equal({ identity: 'ok', campaign: 'ok', allocation: 'ok', tracking: 'ok', placement: 'ok', notification: 'ok', web: 'unavailable' });
    const metrics = await request(gateway.operatorUrl).get('/metrics').expect(200);
    expect(metrics.text).to.include('http_request_duration_seconds');
  });

  it('stays ready and serves ad requests while another service is down (its readiness is its own)', async () => {
    const allocation = await withStandIn((_req, res) => {
      res.setHeader('content-type', 'application/json');
      res.end('{"sponsored":true}');
    });
    const gateway = await gatewayFor({ allocation: allocation.url }); // campaign, identity, ... unreachable
    expect((await request(gateway.url).get('/readyz')).status).to.equal(200);
    expect((await request(gateway.operatorUrl).get('/readyz')).body.checks.campaign).to.equal('unavailable');
    await request(gateway.url).get('/api/network/ad').expect(200);
  });

  describe('the client address it signs', () => {
    /** A GET through `via`, sent from the loopback address `from` (127.0.0.0/8 is all loopback on Linux). */
    function getFrom(from: string, via: string, path: string, headers: Record<string, string> = {}): Promise<number> {
      return new Promise((resolve, reject) => {
        const target = new URL(path, via);
        const call = httpRequest({ host: target.hostname, port: target.port, path: target.pathname, localAddress: from, headers }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        call.on('error', reject);
        call.end();
      });
    }

    async function signedClientIp(upstream: StandIn): Promise<string | null> {
      const forwarded = upstream.requests.at(-1)!;
      const asExpress = Object.assign(forwarded, { originalUrl: forwarded.url ?? '/' }) as unknown as Request;
      return verifyInternalCall(asExpress, SECRET)?.clientIp ?? null;
    }

    /** An extra proxy hop in front of the gateway, as an Ingress is: it appends the peer to X-Forwarded-For. */
    async function ingressFor(gatewayUrl: string): Promise<string> {
      const app = express();
      app.use(createProxyMiddleware({ target: gatewayUrl, xfwd: true }));
      const server = await listen(app, 0, '127.0.0.1');
      cleanup.push(() => server.close(0));
      return server.url;
    }

    const answer = (_req: unknown, res: { setHeader(n: string, v: string): void; end(b: string): void }) => {
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    };

    it('is the X-Forwarded-For client when the peer is a trusted proxy, and a forged X-Forwarded-For is ignored', async () => {
      const upstream = await withStandIn(answer);
      const gateway = await gatewayFor({ allocation: upstream.url }, { TRUSTED_PROXIES: '127.0.0.1' });
      const ingress = await ingressFor(gateway.url);
      expect(await getFrom('127.0.0.5', ingress, '/api/network/ad')).to.equal(200);
      expect(await signedClientIp(upstream)).to.equal('127.0.0.5');
      expect(await getFrom('127.0.0.6', ingress, '/api/network/ad', { 'x-forwarded-for': '203.0.113.9' })).to.equal(200);
      expect(await signedClientIp(upstream), 'a forged hop before the trusted proxy').to.equal('127.0.0.6');
    });

    it('is the socket peer when no proxy is trusted (the default), whatever X-Forwarded-For says', async () => {
      const upstream = await withStandIn(answer);
      const gateway = await gatewayFor({ allocation: upstream.url });
      const ingress = await ingressFor(gateway.url);
      expect(await getFrom('127.0.0.5', gateway.url, '/api/network/ad', { 'x-forwarded-for': '203.0.113.9' })).to.equal(200);
      expect(await signedClientIp(upstream)).to.equal('127.0.0.5');
      expect(await getFrom('127.0.0.5', ingress, '/api/network/ad')).to.equal(200);
      expect(await signedClientIp(upstream), 'every visitor behind an untrusted proxy is the proxy').to.equal('127.0.0.1');
    });

    it('refuses to start with a TRUSTED_PROXIES entry that is not an address or a range, naming the setting', async () => {
      let failure: Error | null = null;
      try {
        await startGateway({}, { TRUSTED_PROXIES: '127.0.0.1, not-an-address' });
      } catch (error) {
        failure = error as Error;
      }
      expect(failure?.message).to.include('TRUSTED_PROXIES');
    });

    it('refuses in production to trust more than an ingress controller: a range wider than a /24 or /120, or a whole private network by name', () => {
      const production = {
        NODE_ENV: 'production',
        GATEWAY_PORT: '0',
        INTERNAL_SECRET: SECRET,
        PUBLIC_BASE_URL: 'https://pilot.example',
        REDIS_URL: 'redis://127.0.0.1:6379',
        ...Object.fromEntries(['IDENTITY', 'CAMPAIGN', 'ALLOCATION', 'TRACKING', 'PLACEMENT', 'NOTIFICATION', 'WEB'].map((name) => [`${name}_URLS`, 'http://127.0.0.1:1'])),
      };
      for (const wide of ['10.0.0.0/8', '10.1.0.0/23', '10.0.0.0/255.255.0.0', 'fd00::/64', 'uniquelocal', '10.244.250.0/28, linklocal']) {
        expect(() => loadConfig({ ...production, TRUSTED_PROXIES: wide }), wide).to.throw(/TRUSTED_PROXIES trusts more than the ingress controller/);
      }
      for (const narrow of ['10.244.250.0/28', '10.1.2.0/24', '10.1.2.3', 'fd00::/120', 'loopback', '']) {
        expect(loadConfig({ ...production, TRUSTED_PROXIES: narrow }).TRUSTED_PROXIES, narrow).to.be.an('array');
      }
      // Outside production a wide range still starts (local set-ups, tests).
      expect(loadConfig({ ...production, NODE_ENV: 'test', TRUSTED_PROXIES: '10.0.0.0/8' }).TRUSTED_PROXIES).to.deep.equal(['10.0.0.0/8']);
    });
  });
});
