/**
 * The event bus: one durable topic exchange; the routing key is the event type.
 *
 * - publish() validates the event against its contract and resolves only after the broker confirmed it;
 *   while the broker is unreachable it fails at once (ServiceUnavailableError), and a message not confirmed
 *   within the deadline is withdrawn, never sent later. An event of a type some durable queue consumes is
 *   published with `mandatory`: when no queue receives it, it is returned and parked in the parking queue of
 *   its type (parking.ts), and if it cannot be parked either the publish fails, so an outbox keeps it
 *   pending. A durable subscription takes the parked events of its types back in the background once it has
 *   started. An event of any other type that no queue receives is dropped by the broker.
 * - subscribeDurable(): one durable quorum queue per consuming service; manual ack after the handler
 *   succeeded; infrastructure faults are retried in place with backoff (never dead-lettered); other failures
 *   are redelivered up to the delivery limit, then the broker moves the message to `<queue>.dead`.
 * - subscribeBroadcast(): one exclusive, auto-delete queue per replica, for caches every replica must keep;
 *   `beforeConsume` runs on every (re)connect after the queue is bound and before consumption starts, so a
 *   replica rebuilds its cache from a snapshot and then applies the events that arrived meanwhile.
 * Reconnection with backoff after a broker restart is amqp-connection-manager's job.
 */
import { assertValidEvent, DURABLY_CONSUMED_EVENT_TYPES, InvalidEventError, type KnownEvent } from '@pilot/contracts';
import { isInfrastructureError, ServiceUnavailableError, withDeadline, type Logger } from '@pilot/platform';
import amqp, { type AmqpConnectionManager, type ChannelWrapper } from 'amqp-connection-manager';
import type { Registry } from 'prom-client';
import { Acknowledger } from './acknowledger';
import { BusMetrics } from './bus-metrics';
import { tracedConsume, tracedPublish } from './trace-context';
import type { Channel, ConfirmChannel, ConsumeMessage, Options } from 'amqplib';
import { declareParkingQueue, parkingQueueOf, ROUTING_KEY_HEADER, takeBackParked } from './parking';

export interface BusOptions {
  url: string;
  exchange: string;
  /** Prefix of durable queue names, normally the exchange name; unique per test run. */
  queuePrefix?: string;
  logger: Logger;
  publishTimeoutMs?: number;
  /** The service's metrics registry: events consumed, rejected, dead-lettered, publish failures. */
  metrics?: Registry;
}

/** The bus settings every service reads from its environment (the shared validators of @pilot/platform's config). */
export interface BusSettings {
  AMQP_URL: string;
  BUS_EXCHANGE: string;
  BUS_PUBLISH_TIMEOUT_MS: number;
}

export type EventHandler<E extends KnownEvent = KnownEvent> = (event: E) => Promise<void>;

export interface DurableSubscription {
  /** Queue name without prefix, usually the consuming service: `tracking`. */
  name: string;
  eventTypes: readonly KnownEvent['type'][];
  handler: EventHandler;
  /** Deliveries before the broker dead-letters a message that keeps failing. */
  deliveryLimit?: number;
  prefetch?: number;
}

export interface BroadcastSubscription {
  eventTypes: readonly KnownEvent['type'][];
  handler: EventHandler;
  beforeConsume?: () => Promise<void>;
}

const RETRY_BACKOFF_MS = [100, 250, 500, 1000, 2000, 5000];

export class Bus {
  private readonly connection: AmqpConnectionManager;
  private publisher: ChannelWrapper;
  private readonly consumers: ChannelWrapper[] = [];
  private readonly exchange: string;
  private readonly queuePrefix: string;
  private readonly logger: Logger;
  private readonly publishTimeoutMs: number;
  /** Message ids the broker returned (routed to no queue) and the sender has not looked at yet. */
  private readonly returned = new Set<string>();
  private closed = false;
  private readonly metrics: BusMetrics;
  /** Dead-letter queues of this process's durable subscriptions, and the channel that declared each. */
  private readonly deadQueues = new Map<string, ChannelWrapper>();
  /** This process's durable subscriptions by name, and the channel that consumes each. */
  private readonly durableQueues = new Map<string, { queue: string; channel: ChannelWrapper }>();

  constructor(options: BusOptions) {
    this.metrics = new BusMetrics(options.metrics, {
      deadLetterDepths: () => this.deadLetterDepths(),
      parkedDepths: () => this.parkedDepths(),
    });
    this.exchange = options.exchange;
    this.queuePrefix = options.queuePrefix ?? options.exchange;
    this.logger = options.logger;
    this.publishTimeoutMs = options.publishTimeoutMs ?? 1000;
    this.connection = amqp.connect([options.url], {
      heartbeatIntervalInSeconds: 5,
      reconnectTimeInSeconds: 0.5,
      // Without noDelay, Nagle's algorithm holds a small frame until the previous one is acknowledged:
      // a basic.get or any call that waits on an answer took 40+ ms instead of under one.
      connectionOptions: { timeout: 2000, noDelay: true },
    });
    this.connection.on('connect', () => this.logger.info('bus connected'));
    this.connection.on('disconnect', ({ err }) => {
      if (!this.closed) this.logger.warn({ err: err?.message }, 'bus disconnected; reconnecting');
    });
    this.connection.on('connectFailed', ({ err }) => {
      if (!this.closed) this.logger.warn({ err: err?.message }, 'bus connection failed; retrying');
    });
    this.publisher = this.openPublisher();
  }

  private openPublisher(): ChannelWrapper {
    const publisher = this.connection.createChannel({
      name: 'publisher',
      confirm: true,
      json: false,
      publishTimeout: this.publishTimeoutMs,
      setup: async (channel: ConfirmChannel) => {
        await this.declareExchanges(channel);
        for (const type of DURABLY_CONSUMED_EVENT_TYPES) await declareParkingQueue(channel, parkingQueueOf(this.exchange, type));
        // The broker sends a return before the confirm of the same message, so the sender sees it in time.
        channel.on('return', (message: ConsumeMessage) => {
          const id: unknown = message.properties.messageId;
          if (typeof id === 'string') this.returned.add(id);
        });
      },
    });
    publisher.on('error', (err) => this.logger.warn({ err: err.message }, 'publisher channel error'));
    return publisher;
  }

  /**
   * A publish that timed out while the connection is up may have left the channel waiting for a `drain`
   * that never comes (amqplib reports a full write buffer, amqp-connection-manager then holds every later
   * message until the channel drains): seen in the soak test as every publish timing out for minutes while
   * the connection stayed up. The channel is replaced, so the next publish goes out on a fresh one.
   */
  private replaceStuckPublisher(): void {
    if (this.closed || !this.connection.isConnected()) return;
    const stuck = this.publisher;
    this.publisher = this.openPublisher();
    this.logger.warn('publisher channel replaced after a publish that was not confirmed in time');
    void stuck.close().catch(() => undefined);
  }

  /** A service's bus, from its settings. */
  static fromSettings(settings: BusSettings, logger: Logger, metrics?: Registry): Bus {
    return new Bus({ url: settings.AMQP_URL, exchange: settings.BUS_EXCHANGE, logger, publishTimeoutMs: settings.BUS_PUBLISH_TIMEOUT_MS, metrics });
  }

  private async deadLetterDepths(): Promise<Map<string, number>> {
    const depths = new Map<string, number>();
    for (const [queue, channel] of this.deadQueues) {
      depths.set(queue, (await withDeadline(channel.checkQueue(queue), 1000, 'rabbitmq')).messageCount);
    }
    return depths;
  }

  /**
   * How many events of each durably consumed type wait parked (the declaration answers the count). While
   * disconnected it fails, so the series is missing from the scrape rather than a zero it does not know.
   */
  private async parkedDepths(): Promise<Map<string, number>> {
    if (!this.connection.isConnected()) throw new ServiceUnavailableError('rabbitmq');
    const depths = new Map<string, number>();
    for (const type of DURABLY_CONSUMED_EVENT_TYPES) {
      depths.set(type, (await withDeadline(declareParkingQueue(this.publisher, parkingQueueOf(this.exchange, type)), 1000, 'rabbitmq')).messageCount);
    }
    return depths;
  }

  private async declareExchanges(channel: ConfirmChannel): Promise<void> {
    await channel.assertExchange(this.exchange, 'topic', { durable: true });
    await channel.assertExchange(this.deadLetterExchange, 'direct', { durable: true });
  }

  private get deadLetterExchange(): string {
    return `${this.exchange}.dlx`;
  }

  /** Resolves once the first connection and the exchanges are in place. */
  async ready(timeoutMs = 10_000): Promise<void> {
    await withDeadline(this.publisher.waitForConnect(), timeoutMs, 'rabbitmq');
  }

  isConnected(): boolean {
    return this.connection.isConnected();
  }

  /** Calls `listener` whenever the connection to the broker is lost (it reconnects by itself). */
  onDisconnect(listener: () => void): void {
    this.connection.on('disconnect', listener);
  }

  async ping(): Promise<void> {
    if (!this.connection.isConnected()) throw new ServiceUnavailableError('rabbitmq');
  }

  async publish(event: KnownEvent): Promise<void> {
    assertValidEvent(event);
    try {
      await tracedPublish(event.type, this.exchange, (traceHeaders) => this.publishValid(event, traceHeaders));
    } catch (error) {
      this.metrics.publishFailures.inc({ event_type: event.type });
      throw error;
    }
  }

  /** Publishes the events one after another, each confirmed before the next (a change's events keep their order). */
  async publishAll(events: readonly KnownEvent[]): Promise<void> {
    for (const event of events) await this.publish(event);
  }

  private async publishValid(event: KnownEvent, traceHeaders: Record<string, string>): Promise<void> {
    if (this.closed || !this.connection.isConnected()) throw new ServiceUnavailableError('rabbitmq');
    const content = Buffer.from(JSON.stringify(event));
    const options: Options.Publish = {
      persistent: true,
      messageId: event.id,
      type: event.type,
      contentType: 'application/json',
      timestamp: Math.floor(Date.parse(event.occurredAt) / 1000), // AMQP timestamps are whole seconds
      headers: traceHeaders,
    };
    const parkable = DURABLY_CONSUMED_EVENT_TYPES.has(event.type);
    const parkingQueue = parkingQueueOf(this.exchange, event.type);
    try {
      if ((await this.sendConfirmed(this.exchange, event.type, content, options, parkable)) === 'routed') return;
      this.logger.info({ eventType: event.type, eventId: event.id, queue: parkingQueue }, 'event bound to no queue: parked');
      const parked = { ...options, headers: { ...traceHeaders, [ROUTING_KEY_HEADER]: event.type } };
      if ((await this.sendConfirmed('', parkingQueue, content, parked)) === 'routed') {
        this.metrics.parked.inc({ event_type: event.type });
        return;
      }
    } catch (error) {
      if (error instanceof ServiceUnavailableError) throw error;
      throw new ServiceUnavailableError('rabbitmq', `publish of ${event.type} was not confirmed: ${(error as Error).message}`);
    }
    throw new ServiceUnavailableError('rabbitmq', `${event.type} is unroutable: no queue is bound to it and ${parkingQueue} is missing`);
  }

  /**
   * Publishes and waits for the confirm. With `mandatory` (the default) the broker returns a message it
   * routed to no queue: 'returned'. Without it such a message is dropped and reported 'routed'.
   */
  private async sendConfirmed(exchange: string, routingKey: string, content: Buffer, options: Options.Publish, mandatory = true): Promise<'routed' | 'returned'> {
    const id = String(options.messageId);
    this.returned.delete(id);
    try {
      await withDeadline(
        this.publisher.publish(exchange, routingKey, content, { ...options, mandatory, timeout: this.publishTimeoutMs }),
        this.publishTimeoutMs + 100,
        'rabbitmq',
      );
    } catch (error) {
      this.returned.delete(id);
      if (/timeout|did not answer/i.test((error as Error).message)) this.replaceStuckPublisher();
      throw error;
    }
    return this.returned.delete(id) ? 'returned' : 'routed';
  }

  /**
   * Brings back what was parked of `eventTypes` while the queue of the durable subscription `queue` did not
   * exist (parking.ts), on a channel of its own (a consumer's channel numbers its deliveries, a get's too),
   * after every (re)connect, in the background: it grows with what the broker holds, so no start waits on
   * it. A failure leaves the rest parked for the next (re)connect.
   */
  private takeBackParkedOf(queue: string, eventTypes: readonly string[]): ChannelWrapper | null {
    const parkable = eventTypes.filter((type) => DURABLY_CONSUMED_EVENT_TYPES.has(type));
    if (parkable.length === 0) return null;
    const channel = this.connection.createChannel({
      name: `${queue}.take-back`,
      confirm: false,
      setup: async (ch: Channel) => void this.takeBackAll(ch, queue, parkable),
    });
    channel.on('error', (err) => this.logger.warn({ err: err.message, queue }, 'take-back channel error'));
    return channel;
  }

  private async takeBackAll(channel: Channel, queue: string, eventTypes: readonly string[]): Promise<void> {
    for (const type of eventTypes) {
      const parkingQueue = parkingQueueOf(this.exchange, type);
      try {
        const delivered = await takeBackParked(channel, parkingQueue, this.exchange, (...send) => this.sendConfirmed(...send), () => this.closed);
        if (delivered > 0) this.logger.info({ queue, parkingQueue, delivered }, 'parked events delivered');
      } catch (error) {
        if (!this.closed) this.logger.warn({ err: (error as Error).message, queue, parkingQueue }, 'parked events not taken back yet; they stay parked');
        return;
      }
    }
  }

  async subscribeDurable(subscription: DurableSubscription): Promise<void> {
    const queue = `${this.queuePrefix}.${subscription.name}`;
    const deadQueue = `${queue}.dead`;
    const deliveryLimit = subscription.deliveryLimit ?? 5;
    const channel = this.connection.createChannel({
      name: queue,
      confirm: false,
      setup: async (ch: ConfirmChannel) => {
        await this.declareExchanges(ch);
        await ch.assertQueue(deadQueue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
        await ch.bindQueue(deadQueue, this.deadLetterExchange, queue);
        await ch.assertQueue(queue, {
          durable: true,
          arguments: {
            'x-queue-type': 'quorum',
            'x-delivery-limit': deliveryLimit,
            'x-dead-letter-exchange': this.deadLetterExchange,
            'x-dead-letter-routing-key': queue,
          },
        });
        for (const type of subscription.eventTypes) await ch.bindQueue(queue, this.exchange, type);
        await ch.prefetch(subscription.prefetch ?? 20);
        const acknowledger = new Acknowledger(ch);
        await ch.consume(queue, (message) => {
          if (!message) return;
          acknowledger.received(message);
          void this.handleDurable(acknowledger, message, subscription.handler, { queue, deliveryLimit });
        });
      },
    });
    channel.on('error', (err) => this.logger.warn({ err: err.message, queue }, 'consumer channel error'));
    this.consumers.push(channel);
    this.deadQueues.set(deadQueue, channel);
    this.durableQueues.set(subscription.name, { queue, channel });
    await withDeadline(channel.waitForConnect(), 10_000, 'rabbitmq');
    const takeBack = this.takeBackParkedOf(queue, subscription.eventTypes);
    if (takeBack) this.consumers.push(takeBack);
  }

  private async handleDurable(
    acknowledger: Acknowledger,
    message: ConsumeMessage,
    handler: EventHandler,
    { queue, deliveryLimit }: { queue: string; deliveryLimit: number },
  ): Promise<void> {
    let event: KnownEvent;
    try {
      event = parseEvent(message);
    } catch (error) {
      this.logger.error({ err: (error as Error).message, routingKey: message.fields.routingKey }, 'malformed event dead-lettered');
      this.metrics.rejected.inc({ reason: 'malformed', subscription: 'durable' });
      this.metrics.deadLettered.inc({ queue });
      acknowledger.nack(message, false);
      return;
    }
    for (let attempt = 0; ; attempt += 1) {
      try {
        await tracedConsume(event.type, queue, message.properties.headers, () => handler(event));
        acknowledger.ack(message);
        this.metrics.consumed.inc({ event_type: event.type, subscription: 'durable' });
        return;
      } catch (error) {
        if (this.closed) return; // unacked: the broker redelivers it to another consumer
        if (isInfrastructureError(error)) {
          this.logger.warn({ err: (error as Error).message, eventType: event.type, attempt }, 'handler waiting for infrastructure');
          await sleep(RETRY_BACKOFF_MS[Math.min(attempt, RETRY_BACKOFF_MS.length - 1)] ?? 5000);
          continue;
        }
        const deliveries = Number(message.properties.headers?.['x-delivery-count'] ?? 0) + 1;
        this.logger.error({ err: error, eventType: event.type, eventId: event.id, deliveries }, 'handler failed; event returned to the queue');
        this.metrics.rejected.inc({ reason: 'handler_failed', subscription: 'durable' });
        // The quorum queue dead-letters a message returned more often than its delivery limit.
        if (deliveries > deliveryLimit) this.metrics.deadLettered.inc({ queue });
        await sleep(Math.min(100 * deliveries, 1000));
        acknowledger.nack(message, true);
        return;
      }
    }
  }

  /** Messages ready in the queue of this process's durable subscription `name` (its backlog), by the broker's count. */
  async durableQueueDepth(name: string): Promise<number> {
    const durable = this.durableQueues.get(name);
    if (!durable) throw new Error(`no durable subscription named ${name}`);
    return (await withDeadline(durable.channel.checkQueue(durable.queue), 1000, 'rabbitmq')).messageCount;
  }

  async subscribeBroadcast(subscription: BroadcastSubscription): Promise<void> {
    const channel = this.connection.createChannel({
      name: 'broadcast',
      confirm: false,
      setup: async (ch: ConfirmChannel) => {
        await this.declareExchanges(ch);
        const { queue } = await ch.assertQueue('', { exclusive: true, autoDelete: true, durable: false });
        for (const type of subscription.eventTypes) await ch.bindQueue(queue, this.exchange, type);
        if (subscription.beforeConsume) await this.untilDone(subscription.beforeConsume, 'broadcast beforeConsume');
        await ch.consume(
          queue,
          (message) => {
            if (!message) return;
            let event: KnownEvent;
            try {
              event = parseEvent(message);
            } catch (error) {
              this.logger.error({ err: (error as Error).message }, 'malformed broadcast event dropped');
              this.metrics.rejected.inc({ reason: 'malformed', subscription: 'broadcast' });
              return;
            }
            tracedConsume(event.type, queue, message.properties.headers, () => subscription.handler(event)).then(
              () => this.metrics.consumed.inc({ event_type: event.type, subscription: 'broadcast' }),
              (error: unknown) => {
                this.logger.error({ err: error, eventType: event.type }, 'broadcast handler failed');
                this.metrics.rejected.inc({ reason: 'handler_failed', subscription: 'broadcast' });
              },
            );
          },
          { noAck: true },
        );
      },
    });
    channel.on('error', (err) => this.logger.warn({ err: err.message }, 'broadcast channel error'));
    this.consumers.push(channel);
    await withDeadline(channel.waitForConnect(), 30_000, 'rabbitmq');
  }

  /** Retries `work` with backoff until it succeeds or the bus closes (a snapshot source may start later). */
  private async untilDone(work: () => Promise<void>, what: string): Promise<void> {
    for (let attempt = 0; !this.closed; attempt += 1) {
      try {
        await work();
        return;
      } catch (error) {
        this.logger.warn({ err: (error as Error).message, attempt }, `${what} failed; retrying`);
        await sleep(RETRY_BACKOFF_MS[Math.min(attempt, RETRY_BACKOFF_MS.length - 1)] ?? 5000);
      }
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled(this.consumers.map((consumer) => consumer.close()));
    await Promise.allSettled([this.publisher.close()]);
    await this.connection.close();
  }
}

function parseEvent(message: ConsumeMessage): KnownEvent {
  let candidate: unknown;
  try {
    candidate = JSON.parse(message.content.toString('utf8'));
  } catch {
    throw new InvalidEventError('body is not JSON');
  }
  assertValidEvent(candidate);
  return candidate;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
