/**
 * The gateway signs the SHA-256 of every forwarded body (streamed, in signed trailers), and a service
 * built on http-kit refuses a body that is not the one signed: through the gateway with a fixed length and
 * chunked, and directly with a signature taken from one call and a body or trailers of another.
 */
import { request as httpRequest } from 'node:http';
import { bodyDigestOf, bodyTrailers, INTERNAL_HEADERS, signedHeaders, listen, type RunningServer, createServiceApp, jsonBody, createLogger } from '@pilot/platform';
import { expect } from 'chai';
import request from 'supertest';
import type { RunningGateway } from '../src/start';
import { SECRET, startGateway } from './support';

const PUBLIC_BASE_URL = 'https://pilot.example';

const PATH = '/api/site/placements/home-feature/impressions';

/** Sends `chunks` as a chunked body (no Content-Length), as a streaming client would, with optional trailers. */
function postChunked(
  baseUrl: string,
  path: string,
  chunks: string[],
  headers: Record<string, string> = {},
  trailers: Record<string, string> | null = null,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(path, baseUrl);
    const req = httpRequest(target, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked', ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    if (trailers) req.addTrailers(trailers);
    req.end();
  });
}

describe('gateway: signed bodies', function () {
  this.timeout(20_000);
  let service: RunningServer;
  let gateway: RunningGateway;

  before(async () => {
    const { app, finish } = createServiceApp({ service: 'echo', publicBaseUrl: PUBLIC_BASE_URL, logger: createLogger({ service: 'echo', level: 'silent' }), internalSecret: SECRET, readiness: {} });
    app.post(PATH, jsonBody('64kb'), (req, res) => void res.json({ received: req.body as unknown }));
    finish();
    service = await listen(app, 0, '127.0.0.1');
    gateway = await startGateway({ placement: service.url });
  });

  after(async () => {
    await gateway?.stop();
    await service?.close();
  });

  it('answers 413 to a chunked body over MAX_BODY_BYTES as to a declared one, and forwards one under it', async () => {
    const small = await startGateway({ placement: service.url }, { MAX_BODY_BYTES: '1024' });
    try {
      const big = `{"placementId":"${'x'.repeat(3000)}"}`;
      const chunks = big.match(/.{1,500}/g)!;
      const refused = await postChunked(small.url, PATH, chunks);
      expect(refused.status).to.equal(413);
      expect(JSON.parse(refused.body)).to.include({ code: 'payload_too_large' });
      const declared = await request(small.url).post(PATH).set('content-type', 'application/json').send(big);
      expect(declared.status).to.equal(413);
      const fits = await postChunked(small.url, PATH, ['{"placementId":', '"small"}']);
      expect(fits.status).to.equal(200);
    } finally {
      await small.stop();
    }
  });

  it('forwards a body with its digest signed, and the service accepts it', async () => {
    const response = await request(gateway.url).post(PATH).send({ placementId: 'abc', note: 'ü'.repeat(50) });
    expect(response.status).to.equal(200);
    expect(response.body.received).to.deep.equal({ placementId: 'abc', note: 'ü'.repeat(50) });
  });

  it('forwards a chunked body (no Content-Length) streamed, its digest in signed trailers', async () => {
    const answer = await postChunked(gateway.url, PATH, ['{"placementId":', '"chunked', '-body"}']);
    expect(answer.status).to.equal(200);
    expect(JSON.parse(answer.body).received).to.deep.equal({ placementId: 'chunked-body' });
  });

  it('accepts a streamed body only with trailers that name its digest and are signed for this call', async () => {
    const body = '{"placementId":"streamed"}';
    const headers = signedHeaders(SECRET, { method: 'POST', url: PATH, bodyInTrailer: true });
    const signature = headers[INTERNAL_HEADERS.signature] as string;
    const good = await postChunked(service.url, PATH, [body], headers, bodyTrailers(SECRET, signature, bodyDigestOf(body)));
    expect(good.status).to.equal(200);
    const refusals = [
      await postChunked(service.url, PATH, [body], headers, null),
      await postChunked(service.url, PATH, ['{"placementId":"other"}'], headers, bodyTrailers(SECRET, signature, bodyDigestOf(body))),
      await postChunked(service.url, PATH, [body], headers, bodyTrailers('another-secret-0123456789abcdef0123', signature, bodyDigestOf(body))),
      await postChunked(service.url, PATH, [body], headers, bodyTrailers(SECRET, `${signature.slice(0, -1)}${signature.endsWith('A') ? 'B' : 'A'}`, bodyDigestOf(body))),
    ];
    for (const refused of refusals) {
      expect(refused.status).to.equal(401);
      expect(JSON.parse(refused.body).code).to.equal('internal_signature_invalid');
    }
  });

  it('makes a captured signature useless for another body sent straight to the service', async () => {
    const signed = signedHeaders(SECRET, { method: 'POST', url: PATH, body: JSON.stringify({ placementId: 'one' }) });
    await request(service.url).post(PATH).set(signed).send({ placementId: 'one' }).expect(200);
    const swapped = await request(service.url).post(PATH).set(signed).send({ placementId: 'two' });
    expect(swapped.status).to.equal(401);
    expect(swapped.body.code).to.equal('internal_signature_invalid');
  });
});
