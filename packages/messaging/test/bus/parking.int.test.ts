import { ServiceUnavailableError, createLogger } from '@pilot/platform';
import { DURABLY_CONSUMED_EVENT_TYPES, type KnownEvent } from '@pilot/contracts';
import { testInfra, waitFor } from '@pilot/testkit';
import amqplib from 'amqplib';
import { expect } from 'chai';
import { Bus } from '../../src';
import { declareParkingQueue, parkingQueueOf, ROUTING_KEY_HEADER } from '../../src/bus/parking';
import { allocationEvent, campaignSubmittedEvent } from './events';

const logger = createLogger({ service: 'bus-test', level: 'silent' });

/** Runs `work` on a channel of its own connection (a 404 of the broker closes the channel it came on). */
async function withChannel<T>(amqpUrl: string, work: (channel: amqplib.ConfirmChannel) => Promise<T>): Promise<T> {
  const connection = await amqplib.connect(amqpUrl);
  connection.on('error', () => undefined);
  try {
    const channel = await connection.createConfirmChannel();
    channel.on('error', () => undefined);
    return await work(channel);
  } finally {
    await connection.close().catch(() => undefined);
  }
}

async function deleteQueue(amqpUrl: string, queue: string): Promise<void> {
  await withChannel(amqpUrl, async (channel) => void (await channel.deleteQueue(queue)));
}

/** How many messages wait in `queue`, or null when it does not exist. */
async function depthOf(amqpUrl: string, queue: string): Promise<number | null> {
  return withChannel(amqpUrl, async (channel) => (await channel.checkQueue(queue)).messageCount).catch(() => null);
}

describe('bus: parking of events no queue receives (real RabbitMQ)', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    while (cleanup.length > 0) await cleanup.pop()?.();
  });

  async function newBus(exchange: string): Promise<Bus> {
    const bus = new Bus({ url: testInfra().amqpUrl, exchange, logger, publishTimeoutMs: 5000 });
    cleanup.push(() => bus.close());
    await bus.ready();
    return bus;
  }

  it('delivers an event published before its durable consumer declared its queue, once the consumer starts', async () => {
    const infra = testInfra();
    const publisher = await newBus(infra.exchange);
    const meanwhile = campaignSubmittedEvent(7);
    await publisher.publish(meanwhile);
    expect(await depthOf(infra.amqpUrl, parkingQueueOf(infra.exchange, 'campaign.submitted'))).to.equal(1);

    const received: KnownEvent[] = [];
    const consumer = await newBus(infra.exchange);
    await consumer.subscribeDurable({ name: 'late', eventTypes: ['campaign.submitted'], handler: async (event) => void received.push(event) });
    await waitFor(() => received.length === 1, { timeoutMs: 10_000, message: 'the event published before the queue existed arrives' });
    expect(received[0]).to.deep.equal(meanwhile);
    await waitFor(async () => (await depthOf(infra.amqpUrl, parkingQueueOf(infra.exchange, 'campaign.submitted'))) === 0, { message: 'nothing left parked' });
  });

  it('starts a durable subscriber within its deadline with 5,000 events parked, and delivers them all afterwards', async function () {
    this.timeout(180_000);
    const infra = testInfra();
    await newBus(infra.exchange); // declares the exchange and the parking queues
    const parkingQueue = parkingQueueOf(infra.exchange, 'campaign.submitted');
    const parkedCount = 5000;
    await withChannel(infra.amqpUrl, async (channel) => {
      await declareParkingQueue(channel, parkingQueue);
      for (let id = 1; id <= parkedCount; id += 1) {
        const event = campaignSubmittedEvent(id);
        channel.sendToQueue(parkingQueue, Buffer.from(JSON.stringify(event)), {
          persistent: true,
          messageId: event.id,
          type: event.type,
          contentType: 'application/json',
          headers: { [ROUTING_KEY_HEADER]: event.type },
        });
      }
      await channel.waitForConfirms();
    });
    expect(await depthOf(infra.amqpUrl, parkingQueue)).to.equal(parkedCount);

    const received = new Set<string>();
    const consumer = await newBus(infra.exchange);
    // subscribeDurable fails with "rabbitmq did not answer" when its start passes the 10-second deadline.
    await consumer.subscribeDurable({ name: 'notification', eventTypes: ['campaign.submitted'], handler: async (event) => void received.add(event.id) });

    await waitFor(() => received.size === parkedCount, { timeoutMs: 120_000, intervalMs: 100, message: 'every parked event delivered' });
    await waitFor(async () => (await depthOf(infra.amqpUrl, parkingQueue)) === 0, { message: 'the parking queue emptied' });
  });

  it('leaves nothing behind for events of a type no durable queue consumes', async () => {
    const infra = testInfra();
    const publisher = await newBus(infra.exchange);
    expect(DURABLY_CONSUMED_EVENT_TYPES.has('allocation.created')).to.equal(false);
    for (let index = 0; index < 20; index += 1) await publisher.publish(allocationEvent());

    expect(await depthOf(infra.amqpUrl, parkingQueueOf(infra.exchange, 'allocation.created'))).to.equal(null);
    expect(await depthOf(infra.amqpUrl, `${infra.exchange}.unrouted`)).to.equal(null);
    for (const type of DURABLY_CONSUMED_EVENT_TYPES) {
      expect(await depthOf(infra.amqpUrl, parkingQueueOf(infra.exchange, type)), type).to.equal(0);
    }
  });

  it('fails the publish (so an outbox keeps the event pending) when the event can be neither routed nor parked', async () => {
    const infra = testInfra();
    const publisher = await newBus(infra.exchange);
    await deleteQueue(infra.amqpUrl, parkingQueueOf(infra.exchange, 'campaign.submitted'));
    let failure: unknown = null;
    await publisher.publish(campaignSubmittedEvent(9)).catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(ServiceUnavailableError);
    expect((failure as Error).message).to.match(/unroutable|no queue/i);
  });
});
