import { expect } from 'chai';
import {
  DeliveryOutcomeUnknownError,
  NetworkApiError,
  NetworkClient,
  nextDelayMs,
  parseRetryAfter,
  RateLimitedError,
  ServiceUnavailableError,
  TransportError,
  UnauthorizedError,
  UnexpectedResponseError,
  type Ad,
  type NetworkClientOptions,
} from '../src';

const AD: Ad = {
  campaign_id: 7,
  title: 'Learn Turkish',
  text: 'Short <b>daily</b> lessons & more',
  button_text: 'Try it',
  image_url: null,
  click_url: 'https://pilot.example/api/network/click/abc.DEF_123-x',
  delivery_token: 'dt.abc',
  expires_in: 3600,
  sponsored: true,
  billing: 'pilot_non_billable',
};

type Reply = { status: number; body?: unknown; headers?: Record<string, string> } | Error;

/** A scripted fetch: answers the replies in order and records the requests. */
function scripted(replies: Reply[]) {
  const requests: { url: string; method: string; headers: Record<string, string>; body: string | undefined }[] = [];
  const fetchImpl = (async (input: Parameters<typeof fetch>[0], init?: RequestInit) => {
    requests.push({
      url: String(input),
      method: init?.method ?? 'GET',
      headers: { ...(init?.headers as Record<string, string>) },
      body: init?.body as string | undefined,
    });
    const reply = replies.shift();
    if (!reply) throw new Error('no more scripted replies');
    if (reply instanceof Error) throw reply;
    const problem = reply.status >= 400;
    const text = reply.body === undefined ? null : JSON.stringify(reply.body);
    return new Response(text, {
      status: reply.status,
      headers: {
        ...(text !== null ? { 'content-type': problem ? 'application/problem+json' : 'application/json' } : {}),
        ...reply.headers,
      },
    });
  }) as typeof fetch;
  return { fetchImpl, requests };
}

const problem = (status: number, code: string) => ({ type: `https://pilot.example/guide/errors#${code}`, title: code, status, detail: code, code });

/** A local port nothing listens on: a connection to it is refused. */
async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function client(replies: Reply[], options: Partial<NetworkClientOptions> = {}) {
  const { fetchImpl, requests } = scripted(replies);
  const waits: number[] = [];
  const instance = new NetworkClient({
    baseUrl: 'https://pilot.example',
    apiKey: 'pilot_pk_test',
    fetch: fetchImpl,
    sleep: async (ms) => {
      waits.push(ms);
    },
    ...options,
  });
  return { instance, requests, waits };
}

describe('network client (unit)', () => {
  describe('requestAd', () => {
    it('returns the Ad of a 200 and sends the key as a bearer token and the language in the query', async () => {
      const { instance, requests } = client([{ status: 200, body: AD }]);
      expect(await instance.requestAd({ language: 'tr' })).to.deep.equal(AD);
      expect(requests).to.have.length(1);
      expect(requests[0]?.url).to.equal('https://pilot.example/api/network/ad?language=tr');
      expect(requests[0]?.headers.authorization).to.equal('Bearer pilot_pk_test');
    });

    it('sends X-Pilot-Test-Answer only when a testAnswer is given, on every attempt', async () => {
      const { instance, requests } = client([{ status: 503, body: problem(503, 'service_unavailable'), headers: { 'retry-after': '1' } }, { status: 204 }, { status: 200, body: AD }]);
      expect(await instance.requestAd({ testAnswer: '503' })).to.equal(null);
      expect(requests.map((request) => request.headers['x-pilot-test-answer'])).to.deep.equal(['503', '503']);
      await instance.requestAd();
      expect(requests[2]?.headers).to.not.have.property('x-pilot-test-answer');
    });

    it('returns null on 204', async () => {
      const { instance } = client([{ status: 204 }]);
      expect(await instance.requestAd()).to.equal(null);
    });

    it('gives the 204\'s Pilot-No-Fill-Reason with requestAdResult, and no reason with an ad', async () => {
      const { instance } = client([{ status: 204, headers: { 'pilot-no-fill-reason': 'own_campaigns_only' } }, { status: 204 }, { status: 200, body: AD }]);
      expect(await instance.requestAdResult()).to.deep.equal({ ad: null, noFillReason: 'own_campaigns_only' });
      expect(await instance.requestAdResult(), 'an answer without the header').to.deep.equal({ ad: null, noFillReason: null });
      expect(await instance.requestAdResult()).to.deep.equal({ ad: AD, noFillReason: null });
    });

    it('keeps a path of the base URL, with or without a trailing slash', async () => {
      for (const baseUrl of ['https://example.org/pilot', 'https://example.org/pilot/']) {
        const { instance, requests } = client([{ status: 204 }, { status: 200, body: { status: 'confirmed', first_confirmation: true } }], { baseUrl });
        await instance.requestAd({ language: 'en' });
        await instance.confirmDelivery('dt.abc');
        expect(requests.map((request) => request.url), baseUrl).to.deep.equal([
          'https://example.org/pilot/api/network/ad?language=en',
          'https://example.org/pilot/api/network/delivery',
        ]);
      }
      expect(() => new NetworkClient({ baseUrl: 'ftp://example.org', apiKey: 'k' })).to.throw(TypeError);
    });

    it('leaves an empty language out, as if none was given', async () => {
      const { instance, requests } = client([{ status: 204 }]);
      await instance.requestAd({ language: '' });
      expect(requests[0]?.url).to.equal('https://pilot.example/api/network/ad');
    });

    it('retries the entry point\'s 502 and 504 like a 503, and throws them as ServiceUnavailableError when they last', async () => {
      const { instance, waits, requests } = client([
        { status: 502, body: problem(502, 'bad_gateway') },
        { status: 504, body: problem(504, 'gateway_timeout') },
        { status: 200, body: AD },
      ]);
      expect(await instance.requestAd()).to.deep.equal(AD);
      expect(waits).to.have.length(2);
      expect(requests).to.have.length(3);
      const lasting = client([{ status: 502, body: problem(502, 'bad_gateway') }], { retry: { maxAttempts: 1 } });
      const error = await lasting.instance.requestAd().catch((e: unknown) => e);
      expect(error).to.be.instanceOf(ServiceUnavailableError);
      expect(error).to.include({ status: 502, code: 'bad_gateway' });
    });

    it('surfaces a forced 503 at once when the call asks for one attempt, whatever the client\'s policy', async () => {
      const forced = { status: 503, body: problem(503, 'service_unavailable'), headers: { 'retry-after': '5' } };
      const { instance, waits, requests } = client([forced, forced, forced, forced]);
      const error = await instance.requestAd({ testAnswer: '503', retry: { maxAttempts: 1 } }).catch((e: unknown) => e);
      expect(error).to.be.instanceOf(ServiceUnavailableError);
      expect(waits).to.deep.equal([]);
      expect(requests).to.have.length(1);
      const patient = await instance.requestAd({ testAnswer: '503' }).catch((e: unknown) => e);
      expect(patient, 'the client\'s own policy still applies to other calls').to.be.instanceOf(ServiceUnavailableError);
      expect(waits, 'the default policy: two waits of Retry-After').to.deep.equal([5000, 5000]);
    });

    it('says an ad request to a refused connection was never sent', async () => {
      const instance = new NetworkClient({ baseUrl: `http://127.0.0.1:${await closedPort()}`, apiKey: 'k', retry: { maxAttempts: 1 } });
      const error = await instance.requestAd().catch((e: unknown) => e);
      expect(error).to.be.instanceOf(TransportError);
      expect(error).to.include({ notSent: true, timedOut: false });
    });

    it('refuses a 200 whose body is not an Ad of the schema', async () => {
      const { instance } = client([{ status: 200, body: { ...AD, sponsored: false } }]);
      const error = await instance.requestAd().catch((e: unknown) => e);
      expect(error).to.be.instanceOf(UnexpectedResponseError);
      expect((error as Error).message).to.contain('sponsored');
    });

    it('waits Retry-After seconds on 429 and on 503, then returns the ad', async () => {
      const { instance, waits, requests } = client([
        { status: 429, body: problem(429, 'rate_limited'), headers: { 'retry-after': '2' } },
        { status: 503, body: problem(503, 'service_unavailable'), headers: { 'retry-after': '1' } },
        { status: 200, body: AD },
      ]);
      expect(await instance.requestAd()).to.deep.equal(AD);
      expect(waits).to.deep.equal([2000, 1000]);
      expect(requests).to.have.length(3);
    });

    it('gives up after maxAttempts with the last RateLimitedError', async () => {
      const { instance, waits, requests } = client(
        [
          { status: 429, body: problem(429, 'rate_limited'), headers: { 'retry-after': '1' } },
          { status: 429, body: problem(429, 'rate_limited'), headers: { 'retry-after': '1' } },
        ],
        { retry: { maxAttempts: 2 } },
      );
      const error = await instance.requestAd().catch((e: unknown) => e);
      expect(error).to.be.instanceOf(RateLimitedError);
      expect(error).to.include({ status: 429, code: 'rate_limited', retryAfterSeconds: 1, attempts: 2 });
      expect(waits).to.deep.equal([1000]);
      expect(requests).to.have.length(2);
    });

    it('does not wait at all when Retry-After is beyond the total wait budget', async () => {
      const { instance, waits, requests } = client([{ status: 429, body: problem(429, 'rate_limited'), headers: { 'retry-after': '45' } }], {
        retry: { maxTotalWaitMs: 10_000 },
      });
      const error = await instance.requestAd().catch((e: unknown) => e);
      expect(error).to.be.instanceOf(RateLimitedError);
      expect(error).to.include({ retryAfterSeconds: 45, attempts: 1 });
      expect(waits).to.deep.equal([]);
      expect(requests).to.have.length(1);
    });

    it('backs off with bounded jitter when a 503 has no Retry-After', async () => {
      const { instance, waits } = client(
        [
          { status: 503, body: problem(503, 'service_unavailable') },
          { status: 503, body: problem(503, 'service_unavailable') },
          { status: 503, body: problem(503, 'service_unavailable') },
        ],
        { retry: { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 150 } },
      );
      const error = await instance.requestAd().catch((e: unknown) => e);
      expect(error).to.be.instanceOf(ServiceUnavailableError);
      expect(waits).to.have.length(2);
      expect(waits[0]).to.be.within(0, 100);
      expect(waits[1]).to.be.within(0, 150);
    });

    it('never retries 400 or 401', async () => {
      for (const [status, code, type] of [
        [400, 'invalid_language', NetworkApiError],
        [401, 'invalid_key', UnauthorizedError],
      ] as const) {
        const { instance, requests } = client([{ status, body: problem(status, code) }, { status: 200, body: AD }]);
        const error = await instance.requestAd().catch((e: unknown) => e);
        expect(error).to.be.instanceOf(type);
        expect(error).to.include({ status, code });
        expect(requests).to.have.length(1);
      }
    });
  });

  describe('confirmDelivery', () => {
    it('posts the token and returns the confirmation', async () => {
      const { instance, requests } = client([{ status: 200, body: { status: 'confirmed', first_confirmation: true } }]);
      expect(await instance.confirmDelivery('dt.abc')).to.deep.equal({ status: 'confirmed', first_confirmation: true });
      expect(requests[0]).to.include({ url: 'https://pilot.example/api/network/delivery', method: 'POST', body: '{"token":"dt.abc"}' });
    });

    it('surfaces a timeout as DeliveryOutcomeUnknownError and never sends the confirmation again', async () => {
      const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
      const { instance, requests } = client([timeout, { status: 200, body: { status: 'confirmed', first_confirmation: true } }]);
      const error = await instance.confirmDelivery('dt.abc').catch((e: unknown) => e);
      expect(error).to.be.instanceOf(DeliveryOutcomeUnknownError);
      expect(error).to.include({ timedOut: true, token: 'dt.abc' });
      expect(requests).to.have.length(1);
    });

    it('times out for real on a confirmation that never gets an answer', async () => {
      const hanging = ((_input: Parameters<typeof fetch>[0], init?: RequestInit) =>
        new Promise<Response>((_resolve, reject) => {
          init?.signal?.addEventListener('abort', () => reject(init.signal?.reason));
        })) as typeof fetch;
      const instance = new NetworkClient({ baseUrl: 'https://pilot.example', apiKey: 'k', fetch: hanging, deliveryTimeoutMs: 20 });
      const error = await instance.confirmDelivery('dt.abc').catch((e: unknown) => e);
      expect(error).to.be.instanceOf(DeliveryOutcomeUnknownError);
      expect(error).to.include({ timedOut: true });
    });

    it('says a confirmation to a refused connection was not sent: a TransportError, never DeliveryOutcomeUnknownError', async () => {
      const instance = new NetworkClient({ baseUrl: `http://127.0.0.1:${await closedPort()}`, apiKey: 'k' });
      const error = await instance.confirmDelivery('dt.abc').catch((e: unknown) => e);
      expect(error).to.be.instanceOf(TransportError);
      expect(error).to.not.be.instanceOf(DeliveryOutcomeUnknownError);
      expect(error).to.include({ notSent: true });
    });

    it('surfaces the entry point\'s 504 on a confirmation as DeliveryOutcomeUnknownError (it may have been recorded)', async () => {
      const { instance, requests } = client([{ status: 504, body: problem(504, 'gateway_timeout') }]);
      const error = await instance.confirmDelivery('dt.abc').catch((e: unknown) => e);
      expect(error).to.be.instanceOf(DeliveryOutcomeUnknownError);
      expect(error).to.include({ timedOut: true, token: 'dt.abc', notSent: false });
      expect(requests).to.have.length(1);
    });

    it('does not retry a 503 on its own', async () => {
      const { instance, requests, waits } = client([
        { status: 503, body: problem(503, 'service_unavailable'), headers: { 'retry-after': '1' } },
        { status: 200, body: { status: 'confirmed', first_confirmation: true } },
      ]);
      const error = await instance.confirmDelivery('dt.abc').catch((e: unknown) => e);
      expect(error).to.be.instanceOf(ServiceUnavailableError);
      expect(error).to.include({ retryAfterSeconds: 1 });
      expect(requests).to.have.length(1);
      expect(waits).to.deep.equal([]);
    });
  });

  describe('retry arithmetic', () => {
    it('reads Retry-After as seconds or as an HTTP date', () => {
      expect(parseRetryAfter('17')).to.equal(17);
      expect(parseRetryAfter(null)).to.equal(null);
      expect(parseRetryAfter('soon')).to.equal(null);
      const now = Date.parse('2026-01-01T00:00:00Z');
      expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).to.equal(30);
    });

    it('never goes past the attempts or the budget', () => {
      const policy = { maxAttempts: 3, maxTotalWaitMs: 5000, baseDelayMs: 500, maxDelayMs: 5000 };
      expect(nextDelayMs(policy, 1, 0, 3)).to.equal(3000);
      expect(nextDelayMs(policy, 2, 3000, 3)).to.equal(null);
      expect(nextDelayMs(policy, 3, 0, 0)).to.equal(null);
      expect(nextDelayMs(policy, 2, 0, null, () => 1)).to.equal(1000);
    });
  });
});
