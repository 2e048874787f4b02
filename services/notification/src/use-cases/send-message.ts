/**
 * Sends one message at most once as the person sees it:
 * 1. a message already settled under its delivery id is not sent again (a redelivered event);
 * 2. the sender takes a claim on the message (an insert of the first, a guarded update to take one over)
 *    and renews its lease before each attempt; a claim held by another live replica makes the event wait
 *    (it is retried in place);
 * 3. the outcome is recorded (an exclusive insert) before the event is acknowledged.
 * The one window left is between the platform taking a message and the outcome being recorded: a process
 * killed there leaves a claim whose lease runs out, and the message is sent again by whoever takes it over.
 * A holder that is alive but cannot write the outcome (the database away for longer than the lease) writes
 * it again every second at most, and a replica takes a run-out claim over only when it finds it run out and
 * unchanged on two looks TAKEOVER_CONFIRM_MS apart: once the database is back, the holder's record lands
 * between the two looks and the message is not sent again.
 *
 * The platform is respected: at most BOT_SEND_LIMIT_PER_SECOND messages per second over every replica
 * (a Redis window), a 429 waits its `retry_after`, a 403 stops messages to that account until the person
 * signs in again, and a send without an answer (timeout, 5xx) is tried again with a growing pause.
 */
import { isInfrastructureError, ServiceUnavailableError } from '@pilot/platform';
import type { BotApi, SendOutcome } from '../bot/bot-api';
import type { DeliveryDocument } from '../data/delivery-repository';
import type { NotificationDeps } from './deps';

export interface Message {
  /** `<event id>:<account>`, or `<event id>:queue:<account>` for a summary. */
  deliveryId: string;
  eventId: string;
  accountId: string;
  kind: DeliveryDocument['kind'];
  text: string;
}

export type SendDeps = Pick<
  NotificationDeps,
  'deliveries' | 'blocks' | 'bot' | 'limiter' | 'lastSignInAt' | 'counters' | 'leaseMs' | 'retryPausesMs' | 'sending' | 'clock' | 'logger'
>;

const RETRY_PAUSES_MS = [1000, 2000, 5000, 10_000, 30_000];
/** The longest pause between two writes of a sent message's record: the database is expected back soon. */
const RECORD_RETRY_MAX_MS = 1000;
/** How long a run-out claim must stay run out and unchanged before another replica takes it over. */
export const TAKEOVER_CONFIRM_MS = 3 * RECORD_RETRY_MAX_MS;
/** Looks at a message's claim before giving up on taking it (each a claim another replica took meanwhile). */
const MAX_CLAIMS = 50;

/** Sends the message as above; nothing without a bot. A second delivery of it in this process waits for the first. */
export async function sendMessage(deps: SendDeps, message: Message): Promise<void> {
  if (!deps.bot) return;
  const { inFlight } = deps.sending;
  for (;;) {
    const running = inFlight.get(message.deliveryId);
    if (!running) break;
    await running.catch(() => undefined);
  }
  const sending = sendOnce(deps, message, deps.bot);
  inFlight.set(message.deliveryId, sending);
  try {
    await sending;
  } finally {
    inFlight.delete(message.deliveryId);
  }
}

async function sendOnce(deps: SendDeps, message: Message, bot: BotApi): Promise<void> {
  const { deliveries } = deps;
  if (await deliveries.settled(message.deliveryId)) return;
  if (await stillBlocked(deps, message.accountId)) {
    await settle(deps, message, 0, 'blocked', null, 'the person blocked the bot and has not signed in since');
    return;
  }
  const claim = await claimMessage(deps, message.deliveryId);
  for (let attempt = 0; ; attempt += 1) {
    throwIfStopping(deps);
    await waitForSendSlot(deps);
    await deliveries.renew(message.deliveryId, claim, new Date(nowMs(deps) + deps.leaseMs));
    // A replica that took the message over while this one was stalled sends it instead.
    if ((await deliveries.currentClaim(message.deliveryId))?.claim !== claim) throw new ServiceUnavailableError('send claim', `${message.deliveryId} was taken over`);
    const outcome = await bot.sendMessage(message.accountId, message.text, deps.sending.stopping.signal);
    if (await settled(deps, message, claim, outcome)) return;
    const waitMs = outcome.kind === 'retry_after' ? outcome.seconds * 1000 : pauseAfter(deps, attempt);
    deps.counters.count('retried', message.kind, outcome.kind === 'retry_after' ? '429' : 'unavailable');
    deps.logger.warn({ deliveryId: message.deliveryId, outcome: describe(outcome), waitMs }, 'message not sent yet; trying again');
    // The lease covers the wait, so no replica takes the message over meanwhile.
    await deliveries.renew(message.deliveryId, claim, new Date(nowMs(deps) + waitMs + deps.leaseMs));
    await pause(deps, waitMs);
  }
}

/** Records a final outcome; false when the outcome asks for another attempt. */
async function settled(deps: SendDeps, message: Message, claim: number, outcome: SendOutcome): Promise<boolean> {
  const { counters, logger } = deps;
  switch (outcome.kind) {
    case 'sent':
      await settle(deps, message, claim, 'sent', outcome.messageId, null);
      counters.count('sent', message.kind);
      return true;
    case 'blocked':
      await deps.blocks.block(message.accountId, deps.clock.now());
      await settle(deps, message, claim, 'blocked', null, outcome.description);
      counters.count('blocked', message.kind, '403');
      logger.info({ accountId: message.accountId }, 'the person blocked the bot: no messages until they sign in again');
      return true;
    case 'refused':
      await settle(deps, message, claim, 'refused', null, `${outcome.status} ${outcome.description}`);
      counters.count('failed', message.kind, String(outcome.status));
      logger.error({ deliveryId: message.deliveryId, status: outcome.status, description: outcome.description }, 'the platform refused a message');
      return true;
    default:
      return false;
  }
}

/**
 * Records a final outcome. The platform has answered, so a failed write is tried again in place, with the
 * same claim, until it succeeds or the process stops: retrying the whole send would send the message again.
 */
async function settle(deps: SendDeps, message: Message, claim: number, outcome: DeliveryDocument['outcome'], messageId: number | null, detail: string | null): Promise<void> {
  const document: DeliveryDocument = {
    _id: message.deliveryId,
    eventId: message.eventId,
    accountId: message.accountId,
    kind: message.kind,
    outcome,
    messageId,
    detail,
    claim,
    at: deps.clock.now(),
  };
  for (let attempt = 0; ; attempt += 1) {
    try {
      await deps.deliveries.settle(document);
      return;
    } catch (error) {
      if (!isInfrastructureError(error) || deps.sending.stopping.signal.aborted) throw error;
      const waitMs = Math.min(pauseAfter(deps, attempt), RECORD_RETRY_MAX_MS);
      deps.logger.warn({ deliveryId: message.deliveryId, outcome, err: (error as Error).message, waitMs }, 'message sent, its record not written yet; writing it again');
      await pause(deps, waitMs);
    }
  }
}

/**
 * A block lasts until the person signs in again: signing in is talking to the bot, which a blocked bot
 * never hears. Asked of publisher-identity only for an account marked blocked.
 */
async function stillBlocked(deps: SendDeps, accountId: string): Promise<boolean> {
  const blockedAt = await deps.blocks.blockedAt(accountId);
  if (!blockedAt) return false;
  const signedIn = await deps.lastSignInAt(accountId);
  if (signedIn && signedIn.getTime() > blockedAt.getTime()) {
    await deps.blocks.unblock(accountId);
    return false;
  }
  return true;
}

/** The number of the claim this process holds on the message, taking over one whose lease ran out. */
async function claimMessage(deps: SendDeps, deliveryId: string): Promise<number> {
  const { deliveries } = deps;
  const { holder } = deps.sending;
  for (let look = 1; look <= MAX_CLAIMS; look += 1) {
    const now = nowMs(deps);
    const held = await deliveries.currentClaim(deliveryId);
    if (!held) {
      if (await deliveries.claimFirst(deliveryId, holder, new Date(now), new Date(now + deps.leaseMs))) return 1;
      continue;
    }
    if (held.holder === holder) return held.claim;
    if (held.leaseUntil.getTime() > now) {
      // Infrastructure-like: the bus retries in place until the holder settles it or its lease runs out.
      throw new ServiceUnavailableError('send claim', `${deliveryId} is being sent by another replica`);
    }
    if (!confirmedRunOut(deps, `${held._id}#${held.claim}@${held.leaseUntil.getTime()}`, now)) {
      throw new ServiceUnavailableError('send claim', `${deliveryId}: the lease of claim ${held.claim} ran out; its holder may still record the message`);
    }
    if (await deliveries.takeOver(held, holder, new Date(now), new Date(now + deps.leaseMs))) return held.claim + 1;
  }
  throw new Error(`${deliveryId}: claimed by others ${MAX_CLAIMS} times while looking; giving up`);
}

/** True on a look TAKEOVER_CONFIRM_MS or more after the first that found this claim run out with this lease. */
function confirmedRunOut(deps: SendDeps, runOut: string, now: number): boolean {
  const seen = deps.sending.runOutClaims;
  const firstSeen = seen.get(runOut);
  if (firstSeen === undefined) {
    // A claim found run out once and settled by its holder meanwhile is never looked at again: forget such ones.
    for (const [key, at] of seen) if (now - at > 100 * TAKEOVER_CONFIRM_MS) seen.delete(key);
    seen.set(runOut, now);
    return false;
  }
  if (now - firstSeen < TAKEOVER_CONFIRM_MS) return false;
  seen.delete(runOut);
  return true;
}

async function waitForSendSlot(deps: SendDeps): Promise<void> {
  for (;;) {
    const decision = await deps.limiter.consume('bot-api');
    if (decision.allowed) return;
    await pause(deps, Math.max(decision.msBeforeReset, 10));
    throwIfStopping(deps);
  }
}

function pauseAfter(deps: SendDeps, attempt: number): number {
  const pauses = deps.retryPausesMs ?? RETRY_PAUSES_MS;
  return pauses[Math.min(attempt, pauses.length - 1)] ?? 1000;
}

function pause(deps: SendDeps, ms: number): Promise<void> {
  return new Promise((resolve) => {
    if (deps.sending.stopping.signal.aborted) return resolve();
    const signal = deps.sending.stopping.signal;
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

function throwIfStopping(deps: SendDeps): void {
  if (deps.sending.stopping.signal.aborted) throw new ServiceUnavailableError('notification', 'stopping');
}

function nowMs(deps: SendDeps): number {
  return deps.clock.now().getTime();
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
