/**
 * What fault tests share: ad and confirmation traffic through the gateway with every answer recorded
 * (status, how long it took, when it was sent), the owner's totals, and the check that an error answer
 * is a clean problem that leaks nothing about the inside.
 */
import { waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import type { Answer, Browser, PublisherServer } from '../../e2e/support/clients';

/** Patterns an error body must never contain: stacks, driver errors, internal addresses. */
/**
 * The text of an answer with every problem `type` taken out: it is the site's public address
 * (PUBLIC_BASE_URL/guide/errors#code), which a test system puts on 127.0.0.1 like its internal services.
 */
export function withoutProblemTypes(text: string): string {
  return text.replace(/"type":"https?:\/\/[^"]*\/guide\/errors#[a-z0-9_]*"/g, '"type":"<the errors page>"');
}

export const LEAK_PATTERNS = [
  /\bat [^\s]+ \(/,
  /node_modules/,
  /Mongo(Server|Network)?Error/i,
  /ECONN(REFUSED|RESET)/,
  /ETIMEDOUT/,
  /127\.0\.0\.1:\d{2,5}/,
  /localhost:\d{2,5}/,
  /amqp:\/\//,
  /redis:\/\//,
  /mongodb:\/\//,
  /stack/i,
];

export interface Sent {
  status: number;
  ms: number;
  /** Date.now() when the request was sent. */
  at: number;
  text: string;
  headers: Headers;
}

/** Times one call; a request that throws (connection reset) is recorded as status 0. */
export async function timed(call: () => Promise<Answer>): Promise<Sent> {
  const at = Date.now();
  try {
    const answer = await call();
    return { status: answer.status, ms: Date.now() - at, at, text: answer.text, headers: answer.headers };
  } catch (error) {
    return { status: 0, ms: Date.now() - at, at, text: String(error), headers: new Headers() };
  }
}

/** A 5xx answer from the system: problem+json with the expected status, and nothing leaked. */
export function expectCleanProblem(sent: Sent, status: number, context: string): void {
  expect(sent.status, `${context}: ${sent.text.slice(0, 300)}`).to.equal(status);
  expect(sent.headers.get('content-type'), context).to.match(/^application\/problem\+json/);
  const body = JSON.parse(sent.text) as Record<string, unknown>;
  expect(body, context).to.include({ status });
  if (status === 503) expect(Number(sent.headers.get('retry-after')), `${context} Retry-After`).to.be.at.least(1);
  for (const pattern of LEAK_PATTERNS) expect(withoutProblemTypes(sent.text), `${context} leaks ${pattern}`).to.not.match(pattern);
}

export interface Totals {
  adRequests: number;
  confirmedDeliveries: number;
  clickedLinks: number;
}

export async function totalsOf(owner: Browser): Promise<Totals> {
  const answer = await owner.get<Totals>('/api/workspace/stats');
  if (answer.status !== 200) throw new Error(`stats answered ${answer.status}: ${answer.text.slice(0, 200)}`);
  return answer.body;
}

/**
 * Waits until the owner's totals equal `expected`, then waits a little longer and checks they stay there
 * (a late or redelivered event must not add anything).
 */
export async function expectTotalsSettle(owner: Browser, expected: Partial<Totals>, timeoutMs = 20_000): Promise<void> {
  let last: Totals | null = null;
  try {
    await waitFor(
      async () => {
        last = await totalsOf(owner);
        return Object.entries(expected).every(([name, value]) => last?.[name as keyof Totals] === value);
      },
      { timeoutMs, intervalMs: 200, message: `totals to reach ${JSON.stringify(expected)}` },
    );
  } catch (error) {
    throw new Error(`${(error as Error).message}; last seen ${JSON.stringify(last)}`);
  }
  // A late or redelivered event announces nothing to wait for: the totals must stay put for one more second.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  expect(await totalsOf(owner)).to.include(expected);
}

export interface AdAnswer {
  delivery_token: string;
  click_url: string;
  campaign_id: number;
}

/**
 * Ad requests in a loop until stopped, one at a time, rotating over several publishers (each has its
 * own 60 per minute limit). Every answer is kept.
 */
export class AdTraffic {
  readonly sent: (Sent & { ad?: AdAnswer })[] = [];
  private running = false;
  private loop: Promise<void> = Promise.resolve();

  constructor(
    private readonly servers: PublisherServer[],
    private readonly language: string,
    private readonly pauseMs = 100,
  ) {}

  start(): void {
    this.running = true;
    this.loop = (async () => {
      for (let i = 0; this.running; i += 1) {
        const server = this.servers[i % this.servers.length] as PublisherServer;
        const sent = await timed(() => server.ad(this.language));
        this.sent.push(sent.status === 200 ? { ...sent, ad: JSON.parse(sent.text) as AdAnswer } : sent);
        await new Promise((resolve) => setTimeout(resolve, this.pauseMs));
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  count(status: number): number {
    return this.sent.filter((sent) => sent.status === status).length;
  }

  statuses(): Record<number, number> {
    const counts: Record<number, number> = {};
    for (const sent of this.sent) counts[sent.status] = (counts[sent.status] ?? 0) + 1;
    return counts;
  }

  /** Resolves once `count` more answers (any status) have come in than when it was called. */
  async more(count: number, timeoutMs: number, message: string): Promise<void> {
    const target = this.sent.length + count;
    await waitFor(() => this.sent.length >= target, { timeoutMs, intervalMs: 20, message });
  }

  /** Resolves with the first answer after `since` that has `status`. */
  async next(status: number, since: number, timeoutMs: number, message: string): Promise<Sent> {
    return waitFor(() => this.sent.find((sent) => sent.at >= since && sent.status === status), { timeoutMs, intervalMs: 20, message });
  }
}

/** With FAULTS_VERBOSE=1, writes what a fault test observed (for docs/reliability.md); silent otherwise. */
export function observe(label: string, value: unknown): void {
  if (process.env.FAULTS_VERBOSE === '1') process.stderr.write(`    observed ${label}: ${JSON.stringify(value)}\n`);
}
