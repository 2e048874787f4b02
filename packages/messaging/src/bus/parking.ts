/**
 * Where events that no queue receives wait. The bus publishes with `mandatory`, so the
 * broker returns an event bound to no queue instead of confirming and dropping it; the bus then puts it in
 * `<exchange>.unrouted`, and a durable subscription that starts later takes the parked events back to the
 * exchange, so a consumer whose queue did not exist yet (a first rollout has no start order) still gets
 * them. Events no service consumes by design (today `placement.changed`, `publisher.key_rotated`) wait here too,
 * bounded by the arguments below.
 */
import type { Channel, GetMessage, Options } from 'amqplib';

/** The routing key an event was published with, kept on its parked copy. */
export const ROUTING_KEY_HEADER = 'x-pilot-routing-key';

/** A week, and at most 100,000 events (the oldest go first): parking is a buffer, not an archive. */
const PARKING_ARGUMENTS = { 'x-message-ttl': 7 * 24 * 3600 * 1000, 'x-max-length': 100_000, 'x-overflow': 'drop-head' };

export function parkingQueueOf(exchange: string): string {
  return `${exchange}.unrouted`;
}

export async function declareParkingQueue(channel: Channel, queue: string): Promise<void> {
  await channel.assertQueue(queue, { durable: true, arguments: PARKING_ARGUMENTS });
}

/** Publishes and waits for the broker's confirm: 'returned' when no queue received it. */
export type ConfirmedSend = (exchange: string, routingKey: string, content: Buffer, options: Options.Publish) => Promise<'routed' | 'returned'>;

/**
 * Sends every event parked now back to the exchange (those still unroutable are parked again), acking each
 * only after the broker confirmed where it went. Returns how many went to a queue.
 */
export async function redeliverParked(channel: Channel, queue: string, exchange: string, send: ConfirmedSend): Promise<number> {
  await declareParkingQueue(channel, queue);
  const { messageCount } = await channel.checkQueue(queue);
  let delivered = 0;
  for (let taken = 0; taken < messageCount; taken += 1) {
    const message = await channel.get(queue, { noAck: false });
    if (!message) break;
    try {
      if ((await send(exchange, routingKeyOf(message), message.content, publishOptionsOf(message))) === 'routed') delivered += 1;
      else if ((await send('', queue, message.content, publishOptionsOf(message))) === 'returned') throw new Error(`${queue} is missing`);
      channel.ack(message);
    } catch (error) {
      channel.nack(message, false, true);
      throw error;
    }
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
