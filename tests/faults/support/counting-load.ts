/**
 * Traffic for the counting fault tests: ad requests from several publishers in parallel loops, and
 * workers that confirm every ad served (every fifth one twice) and open the click link of every second
 * one (every fourth one twice), as publishers and their users would. Every answer is kept, so that the
 * totals the system should reach are known exactly:
 *   ad requests          = ad requests answered 200
 *   confirmed deliveries = allocations confirmed (each answered 200 at least once)
 *   clicked links        = allocations whose click link redirected (302) at least once
 * A confirmation or click refused while a process or Redis was away is retried by `finish`, as a
 * publisher retries, until it is answered; it must then count once.
 */
import { waitFor } from '@pilot/testkit';
import { expect } from 'chai';
import type { PublisherServer } from '../../e2e/support/clients';
import type { AdAnswer } from './traffic';

export interface Served {
  ad: AdAnswer;
  server: PublisherServer;
  /** Answers to the confirmations sent: status and, for 200, first_confirmation. */
  confirmations: { status: number; first?: boolean }[];
  /** Statuses of the click link openings (302 = redirected). */
  clicks: number[];
  wantsClick: boolean;
}

export interface CountingLoadOptions {
  /** Ad request loops running at once; each rotates over its share of the servers. */
  loops: number;
  /** Pause between two ad requests of one loop. */
  pauseMs: number;
  /** Workers confirming and clicking what was served. */
  workers?: number;
}

async function statusOf(call: () => Promise<{ status: number }>): Promise<number> {
  try {
    return (await call()).status;
  } catch {
    return 0; // connection reset or refused
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class CountingLoad {
  readonly served: Served[] = [];
  /** Every ad answer's status, with when it was sent and answered (Date.now()). */
  readonly adAnswers: { status: number; at: number; answeredAt: number }[] = [];
  private running = false;
  private loops: Promise<void>[] = [];
  private cursor = 0;

  constructor(
    private readonly servers: PublisherServer[],
    private readonly language: string,
    private readonly options: CountingLoadOptions,
  ) {}

  start(): void {
    this.running = true;
    const { loops, pauseMs, workers = 2 } = this.options;
    for (let loop = 0; loop < loops; loop += 1) {
      const mine = this.servers.filter((_, index) => index % loops === loop);
      this.loops.push(this.adLoop(mine, pauseMs));
    }
    for (let worker = 0; worker < workers; worker += 1) this.loops.push(this.workLoop());
  }

  /** Stops the ad requests and waits until every ad served so far was confirmed and clicked once. */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
    await this.work();
  }

  /** Retries what was refused (a publisher retries a confirmation; a person clicks again) until answered. */
  async finish(timeoutMs = 30_000): Promise<void> {
    await waitFor(
      async () => {
        for (const served of this.served) {
          if (!served.confirmations.some((answer) => answer.status === 200)) await this.confirm(served);
          if (served.wantsClick && !served.clicks.includes(302)) await this.click(served);
        }
        return this.unanswered().length === 0;
      },
      { timeoutMs, intervalMs: 500, message: `every confirmation and click answered (left: ${this.unanswered().length})` },
    );
  }

  adStatuses(): Record<number, number> {
    const counts: Record<number, number> = {};
    for (const { status } of this.adAnswers) counts[status] = (counts[status] ?? 0) + 1;
    return counts;
  }

  statusesOf(kind: 'confirmations' | 'clicks'): Record<number, number> {
    const counts: Record<number, number> = {};
    for (const served of this.served) {
      for (const answer of served[kind]) {
        const status = typeof answer === 'number' ? answer : answer.status;
        counts[status] = (counts[status] ?? 0) + 1;
      }
    }
    return counts;
  }

  /** The totals the system must reach. */
  expected(): { adRequests: number; confirmedDeliveries: number; clickedLinks: number } {
    return {
      adRequests: this.adAnswers.filter(({ status }) => status === 200).length,
      confirmedDeliveries: this.served.filter((served) => served.confirmations.some((answer) => answer.status === 200)).length,
      clickedLinks: this.served.filter((served) => served.clicks.includes(302)).length,
    };
  }

  /** Answers `first_confirmation: true`. */
  firstConfirmations(): number {
    return this.served.reduce((sum, served) => sum + served.confirmations.filter((answer) => answer.first === true).length, 0);
  }

  /**
   * Allocations never answered `first_confirmation: true`: only allowed when a confirmation of theirs
   * got no answer (in flight when a process or Redis went away) and was counted before it went.
   */
  firstLost(): Served[] {
    return this.served.filter((served) => !served.confirmations.some((answer) => answer.first === true));
  }

  /** Never doubled: at most one `first_confirmation: true` per allocation, and an unanswered attempt behind every one missing. */
  expectConfirmationsConsistent(): void {
    for (const served of this.served) {
      const firsts = served.confirmations.filter((answer) => answer.first === true).length;
      expect(firsts, `first_confirmation true answers of one allocation: ${JSON.stringify(served.confirmations)}`).to.be.at.most(1);
    }
    for (const served of this.firstLost()) {
      const failedFirst = served.confirmations.findIndex((answer) => answer.status !== 200);
      const firstOk = served.confirmations.findIndex((answer) => answer.status === 200);
      expect(
        failedFirst,
        `an allocation whose first answered confirmation said first_confirmation: false with no unanswered attempt before it: ${JSON.stringify(served.confirmations)}`,
      ).to.be.within(0, firstOk);
    }
  }

  private unanswered(): Served[] {
    return this.served.filter((served) => !served.confirmations.some((answer) => answer.status === 200) || (served.wantsClick && !served.clicks.includes(302)));
  }

  private async adLoop(servers: PublisherServer[], pauseMs: number): Promise<void> {
    for (let i = 0; this.running; i += 1) {
      const server = servers[i % servers.length] as PublisherServer;
      const at = Date.now();
      try {
        const answer = await server.ad(this.language);
        this.adAnswers.push({ status: answer.status, at, answeredAt: Date.now() });
        if (answer.status === 200) {
          this.served.push({ ad: answer.body as unknown as AdAnswer, server, confirmations: [], clicks: [], wantsClick: this.served.length % 2 === 0 });
        }
      } catch {
        this.adAnswers.push({ status: 0, at, answeredAt: Date.now() });
      }
      await sleep(pauseMs);
    }
  }

  private async workLoop(): Promise<void> {
    while (this.running) {
      await this.work();
      await sleep(50);
    }
  }

  /** Takes the ads served since the last turn, one at a time, shared between the workers. */
  private async work(): Promise<void> {
    while (this.cursor < this.served.length) {
      const index = this.cursor;
      this.cursor += 1;
      const served = this.served[index] as Served;
      await this.confirm(served);
      if (index % 5 === 0) await this.confirm(served);
      if (served.wantsClick) {
        await this.click(served);
        if (index % 4 === 0) await this.click(served);
      }
    }
  }

  private async confirm(served: Served): Promise<void> {
    try {
      const answer = await served.server.confirm(served.ad.delivery_token);
      const first = answer.status === 200 ? (answer.body as { first_confirmation?: boolean }).first_confirmation : undefined;
      served.confirmations.push({ status: answer.status, ...(first === undefined ? {} : { first }) });
    } catch {
      served.confirmations.push({ status: 0 });
    }
  }

  private async click(served: Served): Promise<void> {
    served.clicks.push(
      await statusOf(async () => {
        const response = await fetch(served.ad.click_url, { redirect: 'manual' });
        await response.arrayBuffer();
        return response;
      }),
    );
  }
}
