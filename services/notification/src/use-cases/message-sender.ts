/**
 * Sends one message at most once as the person sees it (docs/decisions/0035):
 * 1. a message already settled under its delivery id is not sent again (a redelivered event);
 * 2. the sender takes a claim on the message (an exclusive insert) and renews its lease before each
 *    attempt; a claim held by another live replica makes the event wait (it is retried in place);
 * 3. the outcome is recorded (an exclusive insert) before the event is acknowledged.
 * The one window left is between the platform taking a message and the outcome being recorded: a process
 * killed there leaves a claim whose lease runs out, and the message is sent again by whoever takes it over.
 *
 * The platform is respected: at most BOT_SEND_LIMIT_PER_SECOND messages per second over every replica
 * (a Redis window), a 429 waits its `retry_after`, a 403 stops messages to that account until the person
 * signs in again, and a send without an answer (timeout, 5xx) is tried again with a growing pause.
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { ServiceUnavailableError, type Clock, type Logger, type RedisLimiter } from '@pilot/platform';
import type { BotApi, SendOutcome } from '../bot/bot-api';
import type { BlockRepository } from '../data/block-repository';
import type { DeliveryDocument, DeliveryRepository } from '../data/delivery-repository';
import type { NotificationCounters } from '../notification-metrics';

export interface Message {
  /** `<event id>:<account>`, or `<event id>:queue:<account>` for a summary. */
  deliveryId: string;
  eventId: string;
  accountId: string;
  kind: DeliveryDocument['kind'];
  text: string;
}

export interface MessageSenderOptions {
  deliveries: DeliveryRepository;
  blocks: BlockRepository;
  /** null without TELEGRAM_BOT_TOKEN: nothing is sent. */
  bot: BotApi | null;
  limiter: RedisLimiter;
  /** When the account last signed in (publisher-identity), null if never. */
  lastSignInAt: (accountId: string) => Promise<Date | null>;
  clock: Clock;
  logger: Logger;
  counters: NotificationCounters;
  leaseMs: number;
  /** Pauses between attempts that got no answer (ms); the last one repeats. */
  retryPausesMs?: number[];
  /** This process's name as the holder of its claims (random by default). */
  holder?: string;
}

const RETRY_PAUSES_MS = [1000, 2000, 5000, 10_000, 30_000];
/** Claims looked at before giving up on taking a message over (each one a replica that died holding it). */
const MAX_CLAIMS = 50;

export class MessageSender {
  /** This process, as the holder of its claims. */
  private readonly holder: string;
  /** Messages this process is sending now: a second delivery of the same event waits for the first. */
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly stopping = new AbortController();

  constructor(private readonly options: MessageSenderOptions) {
    this.holder = options.holder ?? randomUUID();
    // Every message being sent (up to the prefetch, and more while some wait on the limit) listens to it.
    setMaxListeners(0, this.stopping.signal);
  }

  get enabled(): boolean {
    return this.options.bot !== null;
  }

  /** Ends the waits of messages being sent; their events stay unacknowledged and are delivered again. */
  stop(): void {
    this.stopping.abort();
  }

  async send(message: Message): Promise<void> {
    if (!this.options.bot) return;
    for (;;) {
      const running = this.inFlight.get(message.deliveryId);
      if (!running) break;
      await running.catch(() => undefined);
    }
    const sending = this.sendOnce(message, this.options.bot);
    this.inFlight.set(message.deliveryId, sending);
    try {
      await sending;
    } finally {
      this.inFlight.delete(message.deliveryId);
    }
  }

  private async sendOnce(message: Message, bot: BotApi): Promise<void> {
    const { deliveries } = this.options;
    if (await deliveries.settled(message.deliveryId)) return;
    if (await this.stillBlocked(message.accountId)) {
      await this.settle(message, 0, 'blocked', null, 'the person blocked the bot and has not signed in since');
      return;
    }
    const claim = await this.claim(message.deliveryId);
    for (let attempt = 0; ; attempt += 1) {
      this.throwIfStopping();
      await this.waitForSendSlot();
      await deliveries.renew(message.deliveryId, claim, new Date(this.now() + this.options.leaseMs));
      // A replica that took the message over while this one was stalled sends it instead.
      if (await deliveries.claimOf(message.deliveryId, claim + 1)) throw new ServiceUnavailableError('send claim', `${message.deliveryId} was taken over`);
      const outcome = await bot.sendMessage(message.accountId, message.text, this.stopping.signal);
      if (await this.settled(message, claim, outcome)) return;
      const waitMs = outcome.kind === 'retry_after' ? outcome.seconds * 1000 : this.pauseAfter(attempt);
      this.options.counters.count('retried', message.kind, outcome.kind === 'retry_after' ? '429' : 'unavailable');
      this.options.logger.warn({ deliveryId: message.deliveryId, outcome: describe(outcome), waitMs }, 'message not sent yet; trying again');
      // The lease covers the wait, so no replica takes the message over meanwhile.
      await deliveries.renew(message.deliveryId, claim, new Date(this.now() + waitMs + this.options.leaseMs));
      await this.pause(waitMs);
    }
  }

  /** Records a final outcome; false when the outcome asks for another attempt. */
  private async settled(message: Message, claim: number, outcome: SendOutcome): Promise<boolean> {
    const { counters, logger } = this.options;
    switch (outcome.kind) {
      case 'sent':
        await this.settle(message, claim, 'sent', outcome.messageId, null);
        counters.count('sent', message.kind);
        return true;
      case 'blocked':
        await this.options.blocks.block(message.accountId, this.options.clock.now());
        await this.settle(message, claim, 'blocked', null, outcome.description);
        counters.count('blocked', message.kind, '403');
        logger.info({ accountId: message.accountId }, 'the person blocked the bot: no messages until they sign in again');
        return true;
      case 'refused':
        await this.settle(message, claim, 'refused', null, `${outcome.status} ${outcome.description}`);
        counters.count('failed', message.kind, String(outcome.status));
        logger.error({ deliveryId: message.deliveryId, status: outcome.status, description: outcome.description }, 'the platform refused a message');
        return true;
      default:
        return false;
    }
  }

  private async settle(message: Message, claim: number, outcome: DeliveryDocument['outcome'], messageId: number | null, detail: string | null): Promise<void> {
    await this.options.deliveries.settle({
      _id: message.deliveryId,
      eventId: message.eventId,
      accountId: message.accountId,
      kind: message.kind,
      outcome,
      messageId,
      detail,
      claim,
      at: this.options.clock.now(),
    });
  }

  /**
   * A block lasts until the person signs in again: signing in is talking to the bot, which a blocked bot
   * never hears. Asked of publisher-identity only for an account marked blocked.
   */
  private async stillBlocked(accountId: string): Promise<boolean> {
    const blockedAt = await this.options.blocks.blockedAt(accountId);
    if (!blockedAt) return false;
    const signedIn = await this.options.lastSignInAt(accountId);
    if (signedIn && signedIn.getTime() > blockedAt.getTime()) {
      await this.options.blocks.unblock(accountId);
      return false;
    }
    return true;
  }

  /** The number of the claim this process holds on the message, taking over one whose lease ran out. */
  private async claim(deliveryId: string): Promise<number> {
    const { deliveries } = this.options;
    for (let claim = 1; claim <= MAX_CLAIMS; claim += 1) {
      const now = this.now();
      if (await deliveries.claim(deliveryId, claim, this.holder, new Date(now), new Date(now + this.options.leaseMs))) return claim;
      const held = await deliveries.claimOf(deliveryId, claim);
      if (!held) continue;
      // Its own claim, unless another replica took the message over since (then look at that claim).
      if (held.holder === this.holder) {
        if (!(await deliveries.claimOf(deliveryId, claim + 1))) return claim;
        continue;
      }
      if (held.leaseUntil.getTime() > now) {
        // Infrastructure-like: the bus retries in place until the holder settles it or its lease runs out.
        throw new ServiceUnavailableError('send claim', `${deliveryId} is being sent by another replica`);
      }
    }
    throw new Error(`${deliveryId}: ${MAX_CLAIMS} claims taken over; giving up`);
  }

  private async waitForSendSlot(): Promise<void> {
    for (;;) {
      const decision = await this.options.limiter.consume('bot-api');
      if (decision.allowed) return;
      await this.pause(Math.max(decision.msBeforeReset, 10));
      this.throwIfStopping();
    }
  }

  private pauseAfter(attempt: number): number {
    const pauses = this.options.retryPausesMs ?? RETRY_PAUSES_MS;
    return pauses[Math.min(attempt, pauses.length - 1)] ?? 1000;
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      if (this.stopping.signal.aborted) return resolve();
      const signal = this.stopping.signal;
      const timer = setTimeout(done, ms);
      signal.addEventListener('abort', done, { once: true });
      function done(): void {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        resolve();
      }
    });
  }

  private throwIfStopping(): void {
    if (this.stopping.signal.aborted) throw new ServiceUnavailableError('notification', 'stopping');
  }

  private now(): number {
    return this.options.clock.now().getTime();
  }
}

function describe(outcome: SendOutcome): string {
  switch (outcome.kind) {
    case 'retry_after':
      return `429 retry_after ${outcome.seconds}`;
    case 'unavailable':
      return outcome.description;
    default:
      return outcome.kind;
  }
}
