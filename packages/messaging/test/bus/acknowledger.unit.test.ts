import type { ConsumeMessage } from 'amqplib';
import { expect } from 'chai';
import { Acknowledger } from '../../src/bus/acknowledger';

/** The frames an Acknowledger sends, recorded in order (a stand-in for the amqplib channel). */
function recordingChannel() {
  const frames: string[] = [];
  return {
    frames,
    channel: {
      ack: (message: ConsumeMessage, allUpTo?: boolean) => void frames.push(`ack ${message.fields.deliveryTag}${allUpTo ? ' and all before' : ''}`),
      nack: (message: ConsumeMessage, allUpTo?: boolean, requeue?: boolean) =>
        void frames.push(`nack ${message.fields.deliveryTag}${allUpTo ? ' and all before' : ''}${requeue ? ' requeue' : ''}`),
    },
  };
}

const delivery = (deliveryTag: number) => ({ fields: { deliveryTag } }) as ConsumeMessage;
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('Acknowledger', () => {
  it('acknowledges a run of finished deliveries with one multiple ack per turn', async () => {
    const { channel, frames } = recordingChannel();
    const acks = new Acknowledger(channel);
    for (const tag of [1, 2, 3, 4]) acks.received(delivery(tag));
    for (const tag of [1, 2, 3]) acks.ack(delivery(tag));
    await nextTurn();
    expect(frames).to.deep.equal(['ack 3 and all before']);
  });

  it('holds back the acks after a delivery still being handled, and sends them once it finishes', async () => {
    const { channel, frames } = recordingChannel();
    const acks = new Acknowledger(channel);
    for (const tag of [1, 2, 3]) acks.received(delivery(tag));
    acks.ack(delivery(2));
    acks.ack(delivery(3));
    await nextTurn();
    expect(frames).to.deep.equal([]);
    acks.ack(delivery(1));
    await nextTurn();
    expect(frames).to.deep.equal(['ack 3 and all before']);
  });

  it('sends a rejection at once and lets the run pass over it', async () => {
    const { channel, frames } = recordingChannel();
    const acks = new Acknowledger(channel);
    for (const tag of [1, 2, 3, 4]) acks.received(delivery(tag));
    acks.ack(delivery(1));
    acks.nack(delivery(2), true);
    acks.ack(delivery(3));
    await nextTurn();
    acks.nack(delivery(4), false);
    await nextTurn();
    // Never an ack naming a rejected delivery: the broker would close the channel for an unknown tag.
    expect(frames).to.deep.equal(['nack 2 requeue', 'ack 3 and all before', 'nack 4']);
  });

  it('drops an ack whose channel has closed (the broker redelivers those deliveries)', async () => {
    const acks = new Acknowledger({
      ack: () => {
        throw new Error('Channel closed');
      },
      nack: () => {
        throw new Error('Channel closed');
      },
    });
    acks.received(delivery(1));
    acks.received(delivery(2));
    acks.ack(delivery(1));
    expect(() => acks.nack(delivery(2), true)).not.to.throw();
    await nextTurn();
  });
});
