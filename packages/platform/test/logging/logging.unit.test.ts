import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { createLogger, httpLogger, REQUEST_ID_HEADER, redactUrl } from '../../src/logging';

/** A pino destination that keeps every line, parsed. */
type Line = Record<string, unknown>;

function capture(): { lines: Line[]; raw: string[]; write(line: string): void; logged(match: (line: Line) => boolean): Promise<Line> } {
  const lines: Line[] = [];
  const raw: string[] = [];
  const waiting: { match: (line: Line) => boolean; resolve: (line: Line) => void }[] = [];
  return {
    lines,
    raw,
    write(line: string) {
      raw.push(line);
      const parsed = JSON.parse(line) as Line;
      lines.push(parsed);
      for (const waiter of waiting.filter(({ match }) => match(parsed))) {
        waiting.splice(waiting.indexOf(waiter), 1);
        waiter.resolve(parsed);
      }
    },
    /** The first line `match` accepts, once it has been written. */
    logged(match: (line: Line) => boolean): Promise<Line> {
      const found = lines.find(match);
      return found ? Promise.resolve(found) : new Promise((resolve) => waiting.push({ match, resolve }));
    },
  };
}

const SECRET = 'super-secret-value-123';

describe('logging: createLogger', () => {
  it('writes JSON lines with the service name, level and ISO time', () => {
    const out = capture();
    createLogger({ service: 'svc-a', destination: out }).info({ campaignId: 7 }, 'hello');
    expect(out.lines).to.have.length(1);
    const [line] = out.lines;
    expect(line).to.include({ service: 'svc-a', msg: 'hello', campaignId: 7, level: 30 });
    expect(String(line?.time)).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('honours the level', () => {
    const out = capture();
    const logger = createLogger({ service: 's', level: 'warn', destination: out });
    logger.info('dropped');
    logger.warn('kept');
    expect(out.lines.map((line) => line.msg)).to.deep.equal(['kept']);
  });

  it('redacts Authorization, Cookie, the Telegram secret header and the internal signature in logged requests', () => {
    const out = capture();
    createLogger({ service: 's', destination: out }).info({
      req: {
        headers: {
          authorization: `Bearer ${SECRET}`,
          cookie: `pilot_session=${SECRET}`,
          'x-telegram-bot-api-secret-token': SECRET,
          'x-pilot-internal': `v1.1.${SECRET}`,
          accept: 'application/json',
        },
      },
    });
    expect(out.raw.join('')).not.to.contain(SECRET);
    const headers = (out.lines[0]?.req as { headers: Record<string, string> }).headers;
    expect(headers.authorization).to.equal('[redacted]');
    expect(headers.cookie).to.equal('[redacted]');
    expect(headers['x-telegram-bot-api-secret-token']).to.equal('[redacted]');
    expect(headers['x-pilot-internal']).to.equal('[redacted]');
    expect(headers.accept).to.equal('application/json');
  });

  it('redacts Set-Cookie in logged responses and secret headers logged on their own', () => {
    const out = capture();
    const logger = createLogger({ service: 's', destination: out });
    logger.info({ res: { headers: { 'set-cookie': [`pilot_session=${SECRET}`] } } });
    logger.info({
      headers: {
        authorization: `Bearer ${SECRET}`,
        cookie: SECRET,
        'set-cookie': SECRET,
        'x-telegram-bot-api-secret-token': SECRET,
        'x-pilot-internal': SECRET,
      },
    });
    expect(out.raw.join('')).not.to.contain(SECRET);
    expect((out.lines[0]?.res as { headers: Record<string, unknown> }).headers['set-cookie']).to.equal('[redacted]');
  });

  it('redacts keys, tokens, secrets and passwords at the top level and in logged bodies', () => {
    const out = capture();
    const logger = createLogger({ service: 's', destination: out });
    logger.info({ key: SECRET, token: SECRET, secret: SECRET, password: SECRET, sessionId: SECRET });
    logger.info({
      body: { token: SECRET, apiKey: SECRET, key: SECRET, deliveryToken: SECRET, clickUrl: `https://x/api/network/click/${SECRET}`, publisherId: 5 },
    });
    logger.info({ publisher: { apiKey: SECRET, secret: SECRET, password: SECRET, sessionId: SECRET, delivery_token: SECRET, click_url: SECRET } });
    expect(out.raw.join('')).not.to.contain(SECRET);
    expect(out.lines[0]).to.include({ key: '[redacted]', token: '[redacted]' });
    expect(out.lines[1]?.body).to.include({ token: '[redacted]', apiKey: '[redacted]', publisherId: 5 });
  });
});

describe('logging: redactUrl', () => {
  it('removes the click token from a click path and keeps the path family', () => {
    expect(redactUrl(`/api/network/click/${SECRET}`)).to.equal('/api/network/click/[redacted]');
    expect(redactUrl(`/api/network/click/${SECRET}?utm=1`)).to.equal('/api/network/click/[redacted]?utm=1');
  });

  it('removes token, key and code query parameters, whatever their case', () => {
    expect(redactUrl(`/x?token=${SECRET}&page=2`)).to.equal('/x?token=[redacted]&page=2');
    expect(redactUrl(`/x?page=2&KEY=${SECRET}`)).to.equal('/x?page=2&KEY=[redacted]');
    expect(redactUrl(`/api/auth/telegram?code=${SECRET}#top`)).to.equal('/api/auth/telegram?code=[redacted]#top');
  });

  it('leaves other URLs alone', () => {
    expect(redactUrl('/api/workspace/campaigns/12?status=active')).to.equal('/api/workspace/campaigns/12?status=active');
  });
});

describe('logging: httpLogger and the request id', () => {
  let server: Server;
  let base: string;
  const out = capture();

  before(async () => {
    const middleware = httpLogger(createLogger({ service: 'http-test', destination: out }));
    server = createServer((req, res) => {
      middleware(req, res);
      res.setHeader('content-type', 'text/plain');
      res.end(String(req.id));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const logLineFor = (id: string) =>
    out.lines.find((line) => (line.req as { id?: string } | undefined)?.id === id) as
      | { req: { id: string; method: string; url: string; headers?: unknown }; res: { statusCode: number } }
      | undefined;

  it('keeps a well-formed incoming x-request-id, echoes it and logs the request under it', async () => {
    const response = await fetch(`${base}/api/workspace/campaigns`, { headers: { [REQUEST_ID_HEADER]: 'gw-1234.abc_DEF' } });
    expect(response.headers.get(REQUEST_ID_HEADER)).to.equal('gw-1234.abc_DEF');
    expect(await response.text()).to.equal('gw-1234.abc_DEF');
    const line = logLineFor('gw-1234.abc_DEF');
    expect(line).to.exist;
    expect(line?.req).to.deep.equal({ id: 'gw-1234.abc_DEF', method: 'GET', url: '/api/workspace/campaigns' });
    expect(line?.res.statusCode).to.equal(200);
  });

  it('generates a request id when none is given', async () => {
    const response = await fetch(`${base}/a`);
    const id = response.headers.get(REQUEST_ID_HEADER);
    expect(id).to.match(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(logLineFor(id as string)).to.exist;
  });

  it('replaces a malformed or oversized incoming request id', async () => {
    for (const bad of ['has space', 'x'.repeat(129), 'semi;colon', '"quoted"']) {
      const response = await fetch(`${base}/b`, { headers: { [REQUEST_ID_HEADER]: bad } });
      const id = response.headers.get(REQUEST_ID_HEADER);
      expect(id, bad).not.to.equal(bad);
      expect(id, bad).to.match(/^[0-9a-f-]{36}$/);
    }
  });

  it('logs a click URL without its token and never logs request headers', async () => {
    const response = await fetch(`${base}/api/network/click/${SECRET}`, { headers: { authorization: `Bearer ${SECRET}`, cookie: `s=${SECRET}` } });
    const line = logLineFor(response.headers.get(REQUEST_ID_HEADER) as string);
    expect(line?.req.url).to.equal('/api/network/click/[redacted]');
    expect(line?.req.headers).to.equal(undefined);
    expect(out.raw.join('')).not.to.contain(SECRET);
  });

  it('does not log probe and metrics requests', async () => {
    const before = out.lines.length;
    for (const path of ['/livez', '/readyz', '/metrics']) await (await fetch(`${base}${path}`)).text();
    expect(out.lines.length).to.equal(before);
  });
});

describe('logging: httpLogger on sampled (network) paths', () => {
  let server: Server;
  let base: string;
  const out = capture();

  before(async () => {
    const middleware = httpLogger(createLogger({ service: 'sampled-test', destination: out }), { sampledPaths: ['/api/network/ad', '/api/network/click/'], sampleRate: 0 });
    server = createServer((req, res) => {
      middleware(req, res);
      const status = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('status') ?? 200);
      const delay = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('delay') ?? 0);
      setTimeout(() => {
        res.statusCode = status;
        res.end(String(req.id));
      }, delay);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const idsLogged = () => out.lines.map((line) => (line.req as { id?: string } | undefined)?.id);
  const loggedWithId = (id: string) => out.logged((line) => (line.req as { id?: string } | undefined)?.id === id);
  const call = async (path: string, requestId: string) => {
    const response = await fetch(`${base}${path}`, { headers: { [REQUEST_ID_HEADER]: requestId } });
    if (response.status !== 204) expect(await response.text()).to.equal(requestId); // req.id is still set
    expect(response.headers.get(REQUEST_ID_HEADER)).to.equal(requestId);
  };

  it('logs no line for routine answers (below 400, and 429) of a sampled path', async () => {
    await call('/api/network/ad?language=en', 'routine-200');
    await call('/api/network/ad?status=204', 'routine-204');
    await call('/api/network/click/tok?status=302', 'routine-302');
    await call('/api/network/ad?status=429', 'routine-429');
    // Lines are written in the order the answers finish: once a later, logged call is in, the routine
    // ones had their chance.
    await call('/api/workspace/later', 'later-200');
    await loggedWithId('later-200');
    expect(idsLogged()).to.not.include.members(['routine-200', 'routine-204', 'routine-302', 'routine-429']);
  });

  it('still logs refusals, server errors and slow calls of a sampled path, the click token redacted', async () => {
    await call('/api/network/ad?status=401', 'refused-401');
    await call(`/api/network/click/${SECRET}?status=410`, 'gone-410');
    await call('/api/network/ad?status=503', 'failed-503');
    await call('/api/network/ad?delay=1050', 'slow-200');
    await loggedWithId('slow-200');
    const byId = (id: string) => out.lines.find((line) => (line.req as { id?: string }).id === id);
    expect(byId('refused-401')).to.deep.include({ level: 30, res: { statusCode: 401 } });
    expect(byId('gone-410')?.req).to.deep.equal({ id: 'gone-410', method: 'GET', url: '/api/network/click/[redacted]?status=410' });
    expect(byId('failed-503')).to.deep.include({ level: 50, res: { statusCode: 503 } });
    expect(byId('slow-200')?.responseTime).to.be.at.least(1000);
    expect(out.raw.join('')).not.to.contain(SECRET);
  });

  it('logs every answer of the other paths', async () => {
    await call('/api/workspace/campaigns', 'workspace-200');
    expect((await loggedWithId('workspace-200')).req).to.deep.include({ id: 'workspace-200' });
  });
});
