import { ServiceUnavailableError, createLogger } from '@pilot/platform';
import type { KnownEvent } from '@pilot/contracts';
import { testInfra, waitFor } from '@pilot/testkit';
import amqplib from 'amqplib';
import { expect } from 'chai';
import { Bus } from '../../src';
import { allocationEvent } from './events';

const logger = createLogger({ service: 'bus-test', level: 'silent' });


async function deleteQueue(amqpUrl: string, queue: string): Promise<void> {
  const connection = await amqplib.connect(amqpUrl);
  try {
    const channel = await connection.createChannel();
    await channel.deleteQueue(queue);
  } finally {
    await connection.close();
  }
}

describe('bus: events nobody receives (real RabbitMQ)', () => {
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

  it('keeps an event published while its durable queue does not exist and delivers it once the queue is back', async () => {
    const infra = testInfra();
    const publisher = await newBus(infra.exchange);
    const first = await newBus(infra.exchange);
    const received: KnownEvent[] = [];
    await first.subscribeDurable({ name: 'late', eventTypes: ['allocation.created'], handler: async (event) => void received.push(event) });
    await first.close();
    await deleteQueue(infra.amqpUrl, `${infra.exchange}.late`); // as on a first rollout: the consumer has not declared it yet

    const meanwhile = allocationEvent();
    await publisher.publish(meanwhile);

    const second = await newBus(infra.exchange);
    await second.subscribeDurable({ name: 'late', eventTypes: ['allocation.created'], handler: async (event) => void received.push(event) });
    await waitFor(() => received.length === 1, { timeoutMs: 5000, message: 'the event published while the queue was missing arrives' });
    expect(received[0]).to.deep.equal(meanwhile);
  });

  it('fails the publish (so an outbox keeps the event pending) when the event can be neither routed nor parked', async () => {
    const infra = testInfra();
    const publisher = await newBus(infra.exchange);
    await deleteQueue(infra.amqpUrl, `${infra.exchange}.unrouted`);
    let failure: unknown = null;
    await publisher.publish(allocationEvent()).catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(ServiceUnavailableError);
    expect((failure as Error).message).to.match(/unroutable|no queue/i);
  });
});
