import { fork, type ChildProcess } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect } from 'chai';
import type { Request } from 'express';
import request from 'supertest';
import { ServiceUnavailableError } from '../../src/infrastructure-errors';
import { createLogger } from '../../src/logging';
import { INTERNAL_HEADERS, principalOf, requireAdmin, requirePrincipal, signedHeaders, bodyDigestOf, verifyInternalCall, type CallContext } from '../../src/internal-auth';
import { listen } from '../../src/lifecycle';
import { problems } from '../../src/problems';
import { createServiceApp, jsonBody, positiveIntOf, queryString, readinessReport, type ReadinessCheck } from '../../src/http';

const PUBLIC_BASE_URL = 'https://pilot.example';

const SECRET = 'http-kit-test-secret-0123456789abcdef';
const logger = createLogger({ service: 'http-kit-test', level: 'silent' });

const signed = (method: string, url: string, extra: Partial<CallContext> = {}) =>
  signedHeaders(SECRET, { method, url, ...extra });

function buildApp(readiness: Record<string, ReadinessCheck> = {}) {
  const { app, finish } = createServiceApp({ service: 'kit', publicBaseUrl: PUBLIC_BASE_URL, logger, internalSecret: SECRET, readiness, publicPaths: ['/public'] });
  app.get('/public/hello', (_req, res) => void res.json({ hello: 'world' }));
  app.get('/conflict', () => {
    throw problems.conflict('already_done', 'It was already done');
  });
  app.get('/crash', () => {
    const error = new Error('E11000 duplicate key error collection: secret_db.accounts index: _id_ dup key: { _id: 7 }');
    error.stack = 'Error: at /srv/secret/path.ts:12:3';
    throw error;
  });
  app.get('/async-crash', async () => {
    await Promise.resolve();
    throw new TypeError("Cannot read properties of undefined (reading 'driver')");
  });
  app.get('/mongo-down', async () => {
    const error = new Error('connect ECONNREFUSED 127.0.0.1:27017');
    error.name = 'MongoServerSelectionError';
    throw error;
  });
  app.get('/bus-down', async () => {
    throw new ServiceUnavailableError('rabbitmq');
  });
  app.get('/whoami', (req, res) => void res.json({ principal: principalOf(req) }));
  app.get('/signed-in', (req, res) => void res.json(requirePrincipal(req)));
  app.get('/admin', (req, res) => void res.json(requireAdmin(req)));
  app.post(
    '/things',
    jsonBody('1kb'),
    (req, res) => void res.status(201).json(req.body),
  );
  finish();
  return app;
}

function expectProblem(response: request.Response, status: number, code: string): void {
  expect(response.status).to.equal(status);
  expect(response.headers['content-type']).to.match(/^application\/problem\+json/);
  const body = JSON.parse(response.text) as Record<string, unknown>;
  expect(body).to.include({ status, code, type: `${PUBLIC_BASE_URL}/guide/errors#${code}` });
  expect(body.title).to.be.a('string').and.not.empty;
  expect(body.detail).to.be.a('string').and.not.empty;
}

describe('http: problem+json errors', () => {
  const app = buildApp();

  it('answers a thrown problem as problem+json {type,title,status,detail,code}', async () => {
    const response = await request(app).get('/conflict').set(signed('GET', '/conflict'));
    expectProblem(response, 409, 'already_done');
    expect(JSON.parse(response.text)).to.deep.equal({
      type: `${PUBLIC_BASE_URL}/guide/errors#already_done`,
      title: 'Conflict',
      status: 409,
      detail: 'It was already done',
      code: 'already_done',
    });
  });

  it('answers an unknown route with 404 route_not_found', async () => {
    expectProblem(await request(app).get('/nowhere').set(signed('GET', '/nowhere')), 404, 'route_not_found');
  });

  it('answers an unexpected error with a generic 500 that leaks no stack or driver message', async () => {
    for (const path of ['/crash', '/async-crash']) {
      const response = await request(app).get(path).set(signed('GET', path));
      expectProblem(response, 500, 'internal_error');
      expect(JSON.parse(response.text)).to.deep.equal(problems.internal().toBody(PUBLIC_BASE_URL));
      for (const leak of ['E11000', 'secret_db', 'path.ts', 'driver', 'stack', 'TypeError']) expect(response.text).not.to.contain(leak);
    }
  });

  it('answers an infrastructure fault with 503 service_unavailable and Retry-After', async () => {
    for (const path of ['/mongo-down', '/bus-down']) {
      const response = await request(app).get(path).set(signed('GET', path));
      expectProblem(response, 503, 'service_unavailable');
      expect(response.headers['retry-after']).to.equal('5');
      expect(response.text).not.to.contain('ECONNREFUSED');
      expect(response.text).not.to.contain('rabbitmq');
    }
  });

  it('answers malformed JSON with 400 invalid_json and an oversized body with 413', async () => {
    const bad = await request(app).post('/things').set(signed('POST', '/things', { body: '{"name":' })).set('content-type', 'application/json').send('{"name":');
    expectProblem(bad, 400, 'invalid_json');
    const big = await request(app)
      .post('/things')
      .set(signed('POST', '/things'))
      .send({ name: 'x'.repeat(2000), count: 1 });
    expectProblem(big, 413, 'payload_too_large');
  });

  it('gives 429 a Retry-After of at least one whole second', () => {
    expect(problems.tooManyRequests(0.2).headers['Retry-After']).to.equal('1');
    expect(problems.tooManyRequests(2.1).headers['Retry-After']).to.equal('3');
  });
});

describe('http: request parameters', () => {
  it('parses path ids and single query values strictly', () => {
    expect(positiveIntOf('12')).to.equal(12);
    expect(positiveIntOf(String(Number.MAX_SAFE_INTEGER))).to.equal(Number.MAX_SAFE_INTEGER);
    for (const bad of ['0', '-1', '+1', '1.5', '1e3', '012', ' 1', '1 ', '0x10', 'abc', '', '9007199254740992', '99999999999999999', undefined, null, 1, ['1'], { id: '1' }]) {
      expect(positiveIntOf(bad), String(bad)).to.equal(null);
    }
    expect(queryString('a')).to.equal('a');
    expect(queryString(['a', 'b'])).to.equal(undefined);
  });
});

describe('http: internal signature', () => {
  const app = buildApp();
  const fakeRequest = (method: string, originalUrl: string, headers: Record<string, string>) => ({ method, originalUrl, headers }) as unknown as Request;

  it('accepts a call signed by signedHeaders and gives its principal', async () => {
    const headers = signed('GET', '/whoami?x=1', { accountId: '123', displayName: 'Ünïcode Name', admin: true, clientIp: '10.0.0.1', requestId: 'r-1' });
    const response = await request(app).get('/whoami?x=1').set(headers);
    expect(response.status).to.equal(200);
    expect(response.body.principal).to.deep.equal({ accountId: '123', admin: true, displayName: 'Ünïcode Name' });
    expect(response.headers['x-request-id']).to.equal('r-1');
  });

  it('treats a signed call without an account as anonymous', async () => {
    const response = await request(app).get('/whoami').set(signed('GET', '/whoami'));
    expect(response.body).to.deep.equal({ principal: null });
    expectProblem(await request(app).get('/signed-in').set(signed('GET', '/signed-in')), 401, 'not_signed_in');
    expectProblem(await request(app).get('/admin').set(signed('GET', '/admin', { accountId: '5' })), 403, 'admin_only');
    expect((await request(app).get('/admin').set(signed('GET', '/admin', { accountId: '5', admin: true }))).status).to.equal(200);
  });

  it('refuses an unsigned call with 401 internal_signature_invalid, but serves probes and public paths', async () => {
    expectProblem(await request(app).get('/whoami'), 401, 'internal_signature_invalid');
    expectProblem(await request(app).get('/nowhere'), 401, 'internal_signature_invalid');
    expect((await request(app).get('/livez')).status).to.equal(200);
    expect((await request(app).get('/public/hello')).body).to.deep.equal({ hello: 'world' });
  });

  it('refuses a call whose account, admin flag, name, client address or request id was changed after signing', async () => {
    const headers = signed('GET', '/whoami', { accountId: '123', displayName: 'A', clientIp: '10.0.0.1', requestId: 'r-2' });
    const signature = headers[INTERNAL_HEADERS.signature] ?? '';
    // The last character changed, never to itself (a base64url HMAC ends in "A" one time in 16).
    const corrupted = `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`;
    const changes: Record<string, string>[] = [
      { [INTERNAL_HEADERS.account]: '124' },
      { [INTERNAL_HEADERS.admin]: '1' },
      { [INTERNAL_HEADERS.displayName]: Buffer.from('B').toString('base64url') },
      { [INTERNAL_HEADERS.clientIp]: '10.0.0.2' },
      { [INTERNAL_HEADERS.requestId]: 'r-3' },
      { [INTERNAL_HEADERS.signature]: corrupted },
    ];
    for (const change of changes) {
      expectProblem(await request(app).get('/whoami').set({ ...headers, ...change }), 401, 'internal_signature_invalid');
    }
  });

  it('refuses a body other than the one signed with 401 internal_signature_invalid, before any handler sees it', async () => {
    const headers = signed('POST', '/things', { body: JSON.stringify({ name: 'abc', count: 1 }) });
    expect((await request(app).post('/things').set(headers).send({ name: 'abc', count: 1 })).status).to.equal(201);
    expectProblem(await request(app).post('/things').set(headers).send({ name: 'abc', count: 2 }), 401, 'internal_signature_invalid');
    expectProblem(await request(app).post('/things').set(signed('POST', '/things')).send({ name: 'abc', count: 1 }), 401, 'internal_signature_invalid');
    const { [INTERNAL_HEADERS.bodyDigest]: _digest, ...withoutDigest } = headers;
    expectProblem(await request(app).post('/things').set(withoutDigest).send({ name: 'abc', count: 1 }), 401, 'internal_signature_invalid');
    const forgedDigest = { ...headers, [INTERNAL_HEADERS.bodyDigest]: bodyDigestOf(JSON.stringify({ name: 'abc', count: 2 })) };
    expectProblem(await request(app).post('/things').set(forgedDigest).send({ name: 'abc', count: 2 }), 401, 'internal_signature_invalid');
  });

  it('refuses a compressed body, whose bytes are not the ones signed, with 415', async () => {
    const body = JSON.stringify({ name: 'abc', count: 1 });
    const zipped = gzipSync(body);
    const response = await request(app)
      .post('/things')
      .set(signed('POST', '/things', { body: zipped }))
      .set('content-type', 'application/json')
      .set('content-encoding', 'gzip')
      .send(zipped);
    expectProblem(response, 415, 'unsupported_media_type');
  });

  it('refuses a signature replayed on another URL or method', async () => {
    expectProblem(await request(app).get('/whoami?admin=1').set(signed('GET', '/whoami')), 401, 'internal_signature_invalid');
    expectProblem(await request(app).post('/things').set(signed('GET', '/things')).send({ name: 'abc', count: 1 }), 401, 'internal_signature_invalid');
  });

  it('verifies directly and refuses a timestamp more than a minute old or ahead', () => {
    const now = Date.parse('2026-06-01T00:00:00Z');
    const headers = signedHeaders(SECRET, { method: 'GET', url: '/x', accountId: '9' }, now);
    expect(verifyInternalCall(fakeRequest('GET', '/x', headers), SECRET, now + 59_000)?.principal).to.deep.equal({ accountId: '9', admin: false, displayName: '9' });
    expect(verifyInternalCall(fakeRequest('GET', '/x', headers), SECRET, now + 61_000)).to.equal(null);
    expect(verifyInternalCall(fakeRequest('GET', '/x', headers), SECRET, now - 61_000)).to.equal(null);
    expect(verifyInternalCall(fakeRequest('GET', '/x', headers), 'other-secret', now)).to.equal(null);
    expect(verifyInternalCall(fakeRequest('GET', '/y', headers), SECRET, now)).to.equal(null);
    expect(verifyInternalCall(fakeRequest('DELETE', '/x', headers), SECRET, now)).to.equal(null);
  });

  it('does not make a principal of an account id that is not numeric', () => {
    const headers = signedHeaders(SECRET, { method: 'GET', url: '/x', accountId: 'admin' });
    expect(verifyInternalCall(fakeRequest('GET', '/x', headers), SECRET)).to.deep.include({ principal: null, clientIp: null });
  });
});

describe('http: probes and metrics', () => {
  it('answers /livez 200 without any dependency', async () => {
    const response = await request(buildApp({ mongo: () => Promise.reject(new Error('down')) })).get('/livez');
    expect(response.status).to.equal(200);
    expect(response.body).to.deep.equal({ status: 'ok', service: 'kit' });
  });

  it('answers /readyz 200 with a per-check report when every check passes', async () => {
    const response = await request(buildApp({ mongo: async () => undefined, redis: async () => undefined })).get('/readyz');
    expect(response.status).to.equal(200);
    expect(response.body).to.deep.equal({ status: 'ready', service: 'kit', checks: { mongo: 'ok', redis: 'ok' } });
  });

  it('answers /readyz 503 naming the failing check', async () => {
    const response = await request(buildApp({ mongo: async () => undefined, rabbitmq: () => Promise.reject(new Error('ECONNREFUSED')) })).get('/readyz');
    expect(response.status).to.equal(503);
    expect(response.body).to.deep.equal({ status: 'not_ready', service: 'kit', checks: { mongo: 'ok', rabbitmq: 'unavailable' } });
    expect(response.text).not.to.contain('ECONNREFUSED');
  });

  it('times out a check that hangs and reports it unavailable within two seconds', async () => {
    // The check never settles: only the readiness deadline (1.5 s) can answer before mocha's timeout.
    const response = await request(buildApp({ redis: () => new Promise<void>(() => undefined), mongo: async () => undefined })).get('/readyz');
    expect(response.status).to.equal(503);
    expect(response.body.checks).to.deep.equal({ redis: 'unavailable', mongo: 'ok' });
  });

  it('runs the checks side by side', async () => {
    // Each check finishes only once all three have begun: run one after another, the first would never
    // finish and every check would be reported unavailable at the readiness deadline.
    let begun = 0;
    let allBegun: () => void = () => undefined;
    const together = new Promise<void>((resolve) => (allBegun = resolve));
    const waitsForTheOthers = async () => {
      begun += 1;
      if (begun === 3) allBegun();
      await together;
    };
    const report = await readinessReport({ a: waitsForTheOthers, b: waitsForTheOthers, c: waitsForTheOthers });
    expect(report).to.deep.equal({ ready: true, checks: { a: 'ok', b: 'ok', c: 'ok' } });
  });

  it('serves Prometheus metrics labelled by route pattern, never by raw path', async () => {
    const app = buildApp();
    await request(app).get('/public/hello');
    await request(app).get('/whoami').set(signed('GET', '/whoami'));
    const response = await request(app).get('/metrics');
    expect(response.status).to.equal(200);
    expect(response.headers['content-type']).to.match(/^text\/plain/);
    expect(response.text).to.contain('# TYPE http_request_duration_seconds histogram');
    expect(response.text).to.match(/http_request_duration_seconds_count\{[^}]*route="\/whoami"[^}]*status="200"[^}]*\} 1/);
    expect(response.text).to.contain('service="kit"');
    expect(response.text).to.contain('process_cpu_user_seconds_total');
  });

  it('routes by the path as written: /METRICS is not /metrics', async () => {
    const app = buildApp();
    for (const path of ['/METRICS', '/Metrics', '/READYZ']) {
      const response = await request(app).get(path);
      expect(response.text, path).to.not.contain('# TYPE');
      expect(response.status, path).to.be.oneOf([401, 404]);
    }
  });

  it('hides the framework, and leaves the security headers to the gateway', async () => {
    const response = await request(buildApp()).get('/livez');
    expect(response.headers['x-powered-by']).to.equal(undefined);
    expect(response.headers['x-content-type-options']).to.equal(undefined);
  });

  it('sets the security headers it is given (the gateway, the one public entry)', async () => {
    const { app, finish } = createServiceApp({
      service: 'kit',
      publicBaseUrl: PUBLIC_BASE_URL,
      logger,
      internalSecret: SECRET,
      readiness: {},
      requireSignature: false,
      securityHeaders: { contentSecurityPolicy: { useDefaults: false, directives: { defaultSrc: ["'self'"] } } },
    });
    finish();
    const response = await request(app).get('/livez');
    expect(response.headers['x-powered-by']).to.equal(undefined);
    expect(response.headers['x-content-type-options']).to.equal('nosniff');
    expect(response.headers['content-security-policy']).to.equal("default-src 'self'");
  });
});

describe('http: listen and graceful shutdown', () => {
  /** A plain request on its own connection (no keep-alive pool), resolving to status and body, or the error. */
  const get = (url: string) =>
    new Promise<{ status: number; body: string } | Error>((resolve) => {
      const req = httpRequest(url, { agent: false }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', (error) => resolve(error));
      req.end();
    });

  it('lets an in-flight request finish, refuses new connections, then resolves close()', async () => {
    let release: () => void = () => undefined;
    let enter: () => void = () => undefined;
    const entered = new Promise<void>((resolve) => (enter = resolve));
    const { app, finish } = createServiceApp({ service: 'kit', publicBaseUrl: PUBLIC_BASE_URL, logger, internalSecret: SECRET, readiness: {}, publicPaths: ['/slow'] });
    app.get('/slow', async (_req, res) => {
      enter();
      await new Promise<void>((resolve) => (release = resolve));
      res.json({ finished: true });
    });
    finish();
    const running = await listen(app, 0);
    expect(running.url).to.equal(`http://127.0.0.1:${running.port}`);
    expect(await get(`${running.url}/livez`)).to.deep.include({ status: 200 });

    const inFlight = get(`${running.url}/slow`);
    await entered;

    let closed = false;
    const closing = running.close(5000).then(() => (closed = true));
    const refused = await get(`${running.url}/livez`);
    expect(refused).to.be.instanceOf(Error);
    expect((refused as NodeJS.ErrnoException).code).to.equal('ECONNREFUSED');
    expect(closed).to.equal(false);

    release();
    expect(await inFlight).to.deep.equal({ status: 200, body: '{"finished":true}' });
    await closing;
    expect(closed).to.equal(true);
  });

  it('closes a keep-alive connection as soon as its in-flight response is sent, not after the grace period', async () => {
    let release: () => void = () => undefined;
    let enter: () => void = () => undefined;
    const entered = new Promise<void>((resolve) => (enter = resolve));
    const { app, finish } = createServiceApp({ service: 'kit', publicBaseUrl: PUBLIC_BASE_URL, logger, internalSecret: SECRET, readiness: {}, publicPaths: ['/slow'] });
    app.get('/slow', async (_req, res) => {
      enter();
      await new Promise<void>((resolve) => (release = resolve));
      res.json({ finished: true });
    });
    finish();
    const running = await listen(app, 0);
    const inFlight = fetch(`${running.url}/slow`).then((response) => response.json()); // keep-alive
    await entered;
    // A grace period far past mocha's timeout: close() resolves in time only if the connection is closed
    // as soon as its response is sent.
    const closing = running.close(3_600_000);
    release();
    await closing;
    expect(await inFlight).to.deep.equal({ finished: true });
  });

  it('closes connections still busy after the grace period', async () => {
    let enter: () => void = () => undefined;
    const entered = new Promise<void>((resolve) => (enter = resolve));
    const { app, finish } = createServiceApp({ service: 'kit', publicBaseUrl: PUBLIC_BASE_URL, logger, internalSecret: SECRET, readiness: {}, publicPaths: ['/never'] });
    app.get('/never', () => enter());
    finish();
    const running = await listen(app, 0);
    const stuck = get(`${running.url}/never`);
    await entered;
    // The request never ends by itself: only the end of the grace period lets close() resolve.
    await running.close(200);
    expect(await stuck).to.be.instanceOf(Error);
  });

  it('fails to listen on a port that is taken', async () => {
    const first = await listen(buildApp(), 0);
    try {
      let failure: unknown;
      await listen(buildApp(), first.port).catch((error: unknown) => (failure = error));
      expect((failure as NodeJS.ErrnoException).code).to.equal('EADDRINUSE');
    } finally {
      await first.close();
    }
  });
});

describe('http: runService', () => {
  const children: ChildProcess[] = [];
  after(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  });

  function startFixture(env: Record<string, string> = {}): { child: ChildProcess; exited: Promise<number | null>; stderr: () => string } {
    const child = fork(path.join(__dirname, 'fixtures', 'sigterm-service.ts'), [], {
      execArgv: ['--require', 'tsx/cjs'],
      env: { ...process.env, LOG_LEVEL: 'silent', ...env },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    children.push(child);
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    return { child, exited, stderr: () => stderr };
  }

  const message = <T>(child: ChildProcess, accept: (value: unknown) => value is T) =>
    new Promise<T>((resolve) => {
      const onMessage = (value: unknown) => {
        if (!accept(value)) return;
        child.off('message', onMessage);
        resolve(value);
      };
      child.on('message', onMessage);
    });

  it('on SIGTERM finishes the in-flight request, then exits 0', async function () {
    this.timeout(20_000);
    const { child, exited } = startFixture();
    const { url } = await message(child, (value): value is { url: string } => typeof (value as { url?: unknown })?.url === 'string');
    const handling = message(child, (value): value is 'handling' => value === 'handling');
    const inFlight = fetch(`${url}/slow`).then(async (response) => ({ status: response.status, body: await response.json() }));
    await handling;
    child.kill('SIGTERM');
    expect(await inFlight).to.deep.equal({ status: 200, body: { finished: true } });
    expect(await exited).to.equal(0);
  });

  it('stops with status 1 and a message naming a missing setting', async function () {
    this.timeout(20_000);
    const { exited, stderr } = startFixture({ REQUIRE_SETTING: '1' });
    expect(await exited).to.equal(1);
    expect(stderr()).to.contain('fixture: Invalid configuration: FIXTURE_REQUIRED is required but missing');
  });
});
