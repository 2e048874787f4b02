/**
 * Where an event waits whose durable consumer has not declared its queue yet (a first rollout has no start
 * order). Only the types some durable queue consumes are parked (`DURABLY_CONSUMED_EVENT_TYPES` of
 * @pilot/contracts), each in a queue of its own, `<exchange>.parked.<event type>`; an event of another type
 * that no queue receives is dropped by the broker, as nothing waits for it.
 *
 * A durable subscription takes back the parked events of its own types after it has bound its queue, so
 * each one taken back is routable: it goes to that queue (and to whatever else is bound to its type now).
 * That runs in the background, never inside the subscription's start, and stops at the first event the
 * broker does not route or confirm, leaving it and the rest parked for the next start.
 */
import type { Channel, GetMessage, Options } from 'amqplib';

/** The routing key an event was published with, kept on its parked copy. */
export const ROUTING_KEY_HEADER = 'x-pilot-routing-key';

/** How long a parked event waits, and how many of one type wait at most (the oldest go first). */
export const PARKING_LIMITS = { maxAgeMs: 7 * 24 * 3600 * 1000, maxPerType: 10_000 } as const;

const PARKING_ARGUMENTS = { 'x-message-ttl': PARKING_LIMITS.maxAgeMs, 'x-max-length': PARKING_LIMITS.maxPerType, 'x-overflow': 'drop-head' };

/** Parked events taken back at once: published side by side, each acked after its confirm. */
const TAKE_BACK_BATCH = 50;

export function parkingQueueOf(exchange: string, eventType: string): string {
  return `${exchange}.parked.${eventType}`;
}

/** Declares the parking queue (idempotent); its answer carries how many events wait there. */
export function declareParkingQueue(channel: Pick<Channel, 'assertQueue'>, queue: string): ReturnType<Channel['assertQueue']> {
  return channel.assertQueue(queue, { durable: true, arguments: PARKING_ARGUMENTS });
}

/** Publishes and waits for the broker's confirm: 'returned' when no queue received it. */
export type ConfirmedSend = (exchange: string, routingKey: string, content: Buffer, options: Options.Publish) => Promise<'routed' | 'returned'>;

/**
 * Sends the events parked in `queue` back to `exchange`, a batch at a time, acking each only after the
 * broker confirmed it routed it. Stops at the first one not routed or not confirmed (it and the rest stay
 * parked), when the queue is empty, or when `stopped()` says so. Returns how many went to a queue.
 */
export async function takeBackParked(channel: Channel, queue: string, exchange: string, send: ConfirmedSend, stopped: () => boolean): Promise<number> {
  await declareParkingQueue(channel, queue);
  let delivered = 0;
  while (!stopped()) {
    const batch: GetMessage[] = [];
    while (batch.length < TAKE_BACK_BATCH) {
      const message = await channel.get(queue, { noAck: false });
      if (!message) break;
      batch.push(message);
    }
    if (batch.length === 0) break;
    const outcomes = await Promise.allSettled(batch.map((message) => send(exchange, routingKeyOf(message), message.content, publishOptionsOf(message))));
    let allRouted = true;
    outcomes.forEach((outcome, index) => {
      const message = batch[index]!;
      if (outcome.status === 'fulfilled' && outcome.value === 'routed') {
        channel.ack(message);
        delivered += 1;
      } else {
        channel.nack(message, false, true);
        allRouted = false;
      }
    });
    if (!allRouted) break;
  }
  return delivered;
}

function routingKeyOf(message: GetMessage): string {
  const header = message.properties.headers?.[ROUTING_KEY_HEADER];
  return typeof header === 'string' ? header : String(message.properties.type);
}

function publishOptionsOf(message: GetMessage): Options.Publish {
  const { properties } = message;
  return {
    persistent: true,
    messageId: properties.messageId as string,
    type: properties.type as string,
    contentType: properties.contentType as string,
    timestamp: properties.timestamp as number,
    headers: properties.headers,
  };
}
