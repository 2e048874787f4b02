/**
 * Set-up through the real public API, as people do it: accounts sign in through the bot's webhook, owners
 * create publishers and campaigns in the workspace, the administrator approves and activates them.
 */
import { confirmInBot } from '@pilot/testkit';
import type { BenchSystem } from './system';

export interface Answer<T> {
  status: number;
  body: T;
  text: string;
}

export class Browser {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly system: BenchSystem) {}

  async call<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<Answer<T>> {
    const write = method !== 'GET';
    const response = await fetch(`${this.system.baseUrl}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        ...(write ? { origin: this.system.origin, 'content-type': 'application/json' } : {}),
        ...(this.cookies.size > 0 ? { cookie: this.cookieHeader() } : {}),
      },
      body: write ? JSON.stringify(body ?? {}) : undefined,
    });
    for (const line of response.headers.getSetCookie()) {
      const pair = line.split(';')[0] ?? '';
      const index = pair.indexOf('=');
      if (index > 0) this.cookies.set(pair.slice(0, index).trim(), pair.slice(index + 1).trim());
    }
    const text = await response.text();
    return { status: response.status, body: (text && /json/.test(response.headers.get('content-type') ?? '') ? JSON.parse(text) : {}) as T, text };
  }

  /** The session's cookies as a Cookie header (for load generated outside this browser). */
  cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  /** The call, which must answer `expected`. */
  async must<T = Record<string, unknown>>(expected: number, method: string, path: string, body?: unknown): Promise<T> {
    const answer = await this.call<T>(method, path, body);
    if (answer.status !== expected) throw new Error(`${method} ${path} answered ${answer.status}, not ${expected}: ${answer.text}`);
    return answer.body;
  }
}

export async function signedIn(system: BenchSystem, accountId: string): Promise<Browser> {
  const browser = new Browser(system);
  const login = await browser.must<{ requestId: string; code: string }>(201, 'POST', '/api/auth/login');
  const post = async (update: Record<string, unknown>): Promise<unknown> => {
    const webhook = await fetch(`${system.baseUrl}/api/auth/telegram-webhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': system.webhookSecret },
      body: JSON.stringify(update),
    });
    if (!webhook.ok) throw new Error(`webhook answered ${webhook.status}`);
    return webhook.json();
  };
  await confirmInBot(post, login.code, accountId, `bench${accountId}`);
  const poll = await browser.must<{ status: string }>(200, 'GET', `/api/auth/login/${login.requestId}`);
  if (poll.status !== 'confirmed') throw new Error(`sign-in of ${accountId} not confirmed: ${JSON.stringify(poll)}`);
  return browser;
}

export interface PublisherKey {
  publisherId: number;
  key: string;
}

export async function approvedPublisher(owner: Browser, admin: Browser, link: string): Promise<PublisherKey> {
  const created = await owner.must<{ id: number }>(201, 'POST', '/api/workspace/publishers', { type: 'bot', link });
  await owner.must(200, 'POST', `/api/workspace/publishers/${created.id}/submit`);
  await admin.must(200, 'POST', `/api/workspace/publishers/${created.id}/approve`);
  const key = await owner.must<{ key: string }>(201, 'POST', `/api/workspace/publishers/${created.id}/keys`);
  return { publisherId: created.id, key: key.key };
}

function campaignInput(serial: number, language: string) {
  return {
    name: `Bench campaign ${serial}`,
    format: 'bot',
    title: 'Learn Turkish in 10 minutes a day',
    text: 'Short daily lessons. Free for the first week.',
    destinationUrl: `https://advertiser.example/landing?c=${serial}`,
    buttonText: 'Try it',
    language,
  };
}

/** A campaign created and left as a draft: it is owned and counted, never selected. */
export async function draftCampaign(owner: Browser, serial: number, language: string): Promise<number> {
  return (await owner.must<{ id: number }>(201, 'POST', '/api/workspace/campaigns', campaignInput(serial, language))).id;
}

export async function activeCampaign(owner: Browser, admin: Browser, serial: number, language: string): Promise<number> {
  const created = await owner.must<{ id: number }>(201, 'POST', '/api/workspace/campaigns', campaignInput(serial, language));
  await owner.must(200, 'POST', `/api/workspace/campaigns/${created.id}/submit`);
  await admin.must(200, 'POST', `/api/workspace/campaigns/${created.id}/approve`);
  await admin.must(200, 'POST', `/api/workspace/campaigns/${created.id}/activate`);
  return created.id;
}

/** Runs `work` over `items` with at most `limit` at a time. */
export async function inParallel<T, R>(items: T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next;
        next += 1;
        results[index] = await work(items[index] as T, index);
      }
    }),
  );
  return results;
}
