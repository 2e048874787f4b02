import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { signedHeaders } from '@pilot/platform';
import { expect } from 'chai';
import request from 'supertest';
import type { RunningWeb } from '../src/start';
import { rawGet } from './support/raw-get';
import { SECRET, startWeb } from './support/stack';

function signed(method: string, url: string) {
  return signedHeaders(SECRET, { method, url });
}

function fixtureSite(): string {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'pilot-web-fixture-'));
  fs.mkdirSync(path.join(root, 'assets'));
  fs.writeFileSync(path.join(root, 'index.html'), '<!doctype html><html><body><div id="root"></div><script type="module" src="/assets/index-AbC123.js"></script></body></html>');
  fs.writeFileSync(path.join(root, 'assets', 'index-AbC123.js'), 'console.log("app");');
  // As the build's precompress step leaves them: a brotli and a gzip copy next to the file.
  const app = fs.readFileSync(path.join(root, 'assets', 'index-AbC123.js'));
  fs.writeFileSync(path.join(root, 'assets', 'index-AbC123.js.br'), zlib.brotliCompressSync(app));
  fs.writeFileSync(path.join(root, 'assets', 'index-AbC123.js.gz'), zlib.gzipSync(app));
  fs.writeFileSync(path.join(root, 'robots.txt'), 'User-agent: *\n');
  // As the build writes the guide's pages: the document inside the root element, the example origin in it.
  fs.mkdirSync(path.join(root, 'prerendered'));
  fs.writeFileSync(
    path.join(root, 'prerendered', 'guide-errors.html'),
    '<!doctype html><html><body><div id="root"><section id="missing_key"><h3>missing_key</h3><p>401. See https://pilot.example/guide and {base_url}/guide/errors#missing_key.</p></section></div></body></html>',
  );
  return root;
}

describe('web service (static site behind the gateway)', () => {
  let web: RunningWeb;
  let root: string;

  before(async () => {
    root = fixtureSite();
    web = await startWeb(root);
  });

  after(async () => {
    await web.stop();
    fs.rmSync(root, { recursive: true, force: true });
  });

  it('serves hashed assets as immutable for a year', async () => {
    const response = await request(web.url).get('/assets/index-AbC123.js').set(signed('GET', '/assets/index-AbC123.js'));
    expect(response.status).to.equal(200);
    expect(response.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
    expect(response.headers['content-type']).to.match(/javascript/);
  });

  it('serves a guide page the build wrote, with its text as served and the site\'s origin in it, gzipped once when accepted', async () => {
    for (const route of ['/guide/errors', '/guide/errors/']) {
      const response = await request(web.url).get(route).set(signed('GET', route));
      expect(response.status, route).to.equal(200);
      expect(response.headers['content-type']).to.equal('text/html; charset=utf-8');
      expect(response.headers['cache-control']).to.equal('no-cache');
      expect(response.text).to.contain('<section id="missing_key"><h3>missing_key</h3>');
      expect(response.text).to.contain('See http://127.0.0.1:8080/guide and http://127.0.0.1:8080/guide/errors#missing_key.');
    }
    const gzip = await rawGet(`${web.url}/guide/errors`, { ...signed('GET', '/guide/errors'), 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).to.equal('gzip');
    expect(gzip.headers.vary).to.contain('Accept-Encoding');
    expect(zlib.gunzipSync(gzip.body).toString()).to.contain('<section id="missing_key">');
    // A page the build did not write is the app's, as before.
    const app = await request(web.url).get('/guide/changelog').set(signed('GET', '/guide/changelog'));
    expect(app.status).to.equal(200);
    expect(app.text).to.contain('<div id="root"></div>');
  });

  it('serves index.html at / with no-cache so a new build is picked up at once', async () => {
    const response = await request(web.url).get('/').set(signed('GET', '/'));
    expect(response.status).to.equal(200);
    expect(response.headers['cache-control']).to.equal('no-cache');
    expect(response.headers['content-type']).to.match(/text\/html/);
    expect(response.text).to.contain('<div id="root">');
  });

  it('answers index.html for workspace and site routes of the single-page app (SPA fallback)', async () => {
    for (const route of ['/workspace', '/workspace/campaigns/42', '/signin', '/tr']) {
      const response = await request(web.url).get(route).set(signed('GET', route));
      expect(response.status, route).to.equal(200);
      expect(response.headers['cache-control'], route).to.equal('no-cache');
      expect(response.text, route).to.contain('<div id="root">');
    }
  });

  it('answers 404 with the app (which shows its not-found page) for a page the app does not have', async () => {
    for (const route of ['/no-such-page', '/workspace/nothing', '/workspace/campaigns/abc']) {
      const response = await request(web.url).get(route).set(signed('GET', route));
      expect(response.status, route).to.equal(404);
      expect(response.headers['content-type'], route).to.match(/text\/html/);
      expect(response.text, route).to.contain('<div id="root">');
    }
  });

  it('serves the prebuilt brotli or gzip copy to a browser that accepts it, the file itself otherwise', async () => {
    const asset = '/assets/index-AbC123.js';
    const brotli = await rawGet(`${web.url}${asset}`, { ...signed('GET', asset), 'accept-encoding': 'gzip, deflate, br' });
    expect(brotli.headers['content-encoding']).to.equal('br');
    expect(brotli.headers.vary).to.match(/accept-encoding/i);
    expect(brotli.headers['content-type']).to.match(/javascript/);
    expect(brotli.headers['cache-control']).to.equal('public, max-age=31536000, immutable');
    expect(zlib.brotliDecompressSync(brotli.body).toString()).to.equal('console.log("app");');
    const gzip = await rawGet(`${web.url}${asset}`, { ...signed('GET', asset), 'accept-encoding': 'gzip' });
    expect(gzip.headers['content-encoding']).to.equal('gzip');
    expect(zlib.gunzipSync(gzip.body).toString()).to.equal('console.log("app");');
    const plain = await rawGet(`${web.url}${asset}`, { ...signed('GET', asset), 'accept-encoding': 'identity' });
    expect(plain.headers['content-encoding']).to.equal(undefined);
    expect(plain.body.toString()).to.equal('console.log("app");');
  });

  it('gives other files a short cache', async () => {
    const response = await request(web.url).get('/robots.txt').set(signed('GET', '/robots.txt'));
    expect(response.status).to.equal(200);
    expect(response.headers['cache-control']).to.equal('public, max-age=300');
  });

  it('answers 404 problem+json for a missing asset, a missing file and an /api path instead of the app', async () => {
    for (const missing of ['/assets/gone-123.js', '/missing.png', '/api/unknown']) {
      const response = await request(web.url).get(missing).set(signed('GET', missing));
      expect(response.status, missing).to.equal(404);
      expect(response.headers['content-type'], missing).to.match(/application\/problem\+json/);
      expect(response.body.code, missing).to.be.a('string');
    }
  });

  it('refuses a request that did not come through the gateway with 401', async () => {
    const response = await request(web.url).get('/');
    expect(response.status).to.equal(401);
    expect(response.headers['content-type']).to.match(/application\/problem\+json/);
  });

  it('answers /livez and /readyz without the gateway signature', async () => {
    const live = await request(web.url).get('/livez');
    expect(live.status).to.equal(200);
    expect(live.body).to.include({ status: 'ok', service: 'web' });
    const ready = await request(web.url).get('/readyz');
    expect(ready.status).to.equal(200);
    expect(ready.body.checks).to.deep.equal({ site: 'ok' });
  });

  it('is not ready (503) while the built site is missing', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'pilot-web-empty-'));
    const bare = await startWeb(empty);
    try {
      const ready = await request(bare.url).get('/readyz');
      expect(ready.status).to.equal(503);
      expect(ready.body.checks).to.deep.equal({ site: 'unavailable' });
    } finally {
      await bare.stop();
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});
