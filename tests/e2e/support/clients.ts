/**
 * Clients of the running system as its real users reach it: a browser in the workspace (cookies, the
 * site's Origin on writes, sign-in through the bot's webhook) and a publisher server (bearer key).
 */
import { confirmInBot } from '@pilot/testkit';
import { expect } from 'chai';
import { WEBHOOK_SECRET, type System } from './system';

export interface Answer<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

async function answerOf<T>(response: Response): Promise<Answer<T>> {
  const text = await response.text();
  let body: unknown = {};
  if (text.length > 0 && /json/.test(response.headers.get('content-type') ?? '')) body = JSON.parse(text);
  return { status: response.status, headers: response.headers, body: body as T, text };
}

/** The Ad object of SPEC.md as the ad endpoint answers it: the client's type, generated from the OpenAPI document. */
export type { Ad } from '../../../clients/network/src/types';

/** A browser: keeps its cookies, sends the site's Origin on writes. */
export class Browser {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly system: System) {}

  cookieHeader(): string {
    return [...this.cookies.entries()].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async call<T = Record<string, unknown>>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer<T>> {
    const write = !['GET', 'HEAD'].includes(method);
    const response = await fetch(`${this.system.baseUrl}${path}`, {
      method,
      redirect: 'manual',
      headers: {
        ...(write ? { origin: this.system.origin } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(this.cookies.size > 0 ? { cookie: this.cookieHeader() } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const index = pair?.indexOf('=') ?? -1;
      if (!pair || index < 0) continue;
      const name = pair.slice(0, index).trim();
      const value = pair.slice(index + 1).trim();
      if (value === '' || /max-age=0|expires=thu, 01 jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return answerOf<T>(response);
  }

  get<T = Record<string, unknown>>(path: string): Promise<Answer<T>> {
    return this.call<T>('GET', path);
  }

  post<T = Record<string, unknown>>(path: string, body?: unknown): Promise<Answer<T>> {
    return this.call<T>('POST', path, body ?? {});
  }

  put<T = Record<string, unknown>>(path: string, body: unknown): Promise<Answer<T>> {
    return this.call<T>('PUT', path, body);
  }
}

/** The messaging platform delivering an Update to the bot's webhook. */
export async function botUpdate(system: System, update: Record<string, unknown>): Promise<Answer> {
  const response = await fetch(`${system.baseUrl}/api/auth/telegram-webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': WEBHOOK_SECRET },
    body: JSON.stringify(update),
  });
  return answerOf(response);
}

/** A person confirming a sign-in in the bot: `/start <code>`, then Confirm, the first button of the bot's question. */
export async function botConfirms(system: System, code: string, accountId: string, username = `user${accountId}`): Promise<Answer> {
  let last: Answer | null = null;
  await confirmInBot(
    async (update) => {
      last = await botUpdate(system, update);
      expect(last.status, last.text).to.equal(200);
      return last.body;
    },
    code,
    accountId,
    username,
  );
  return last!;
}

/** A browser signed in as `accountId` through the whole bot-confirmed flow. */
export async function signedIn(system: System, accountId: string): Promise<Browser> {
  const browser = new Browser(system);
  const login = await browser.post<{ requestId: string; code: string }>('/api/auth/login');
  expect(login.status, login.text).to.equal(201);
  const confirmed = await botConfirms(system, login.body.code, accountId);
  expect(confirmed.status).to.equal(200);
  const poll = await browser.get<{ status: string }>(`/api/auth/login/${login.body.requestId}`);
  expect(poll.body.status, poll.text).to.equal('confirmed');
  const session = await browser.get<{ accountId: string }>('/api/auth/session');
  expect(session.status, session.text).to.equal(200);
  expect(session.body.accountId).to.equal(accountId);
  return browser;
}

/** A publisher's server calling the network API with its key. */
export class PublisherServer {
  constructor(
    private readonly system: System,
    public key: string,
  ) {}

  ad(language?: string): Promise<Answer> {
    const query = language === undefined ? '' : `?language=${encodeURIComponent(language)}`;
    return fetch(`${this.system.baseUrl}/api/network/ad${query}`, { headers: { authorization: `Bearer ${this.key}` } }).then((r) => answerOf(r));
  }

  confirm(token: string): Promise<Answer> {
    return fetch(`${this.system.baseUrl}/api/network/delivery`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    }).then((r) => answerOf(r));
  }
}

/** Anyone opening a click link (no key), without following the redirect. */
export function openLink(url: string, method: 'GET' | 'HEAD' = 'GET', headers: Record<string, string> = {}): Promise<Answer> {
  return fetch(url, { method, redirect: 'manual', headers }).then((r) => answerOf(r));
}
