/**
 * Acknowledges a channel's deliveries in runs: when handlers finish, the longest run of finished
 * deliveries from the oldest unsettled one is acknowledged with one `multiple` ack (per event-loop turn),
 * instead of one frame, and on a quorum queue one log entry, per message. A delivery still being handled
 * holds back the acks of those after it, never the handling of them. Rejections (nack) go out at once,
 * one by one, as before.
 *
 * One Acknowledger per underlying channel: delivery tags start again at 1 on a new channel, and a channel
 * that closed has its unacknowledged deliveries redelivered by the broker, so a late ack on it is dropped.
 */
import type { Channel, ConsumeMessage } from 'amqplib';

export class Acknowledger {
  /** Delivery tags not yet acknowledged, oldest first (the broker hands them out increasing). */
  private readonly unsettled: number[] = [];
  /** Finished deliveries: true when handled (to acknowledge), false when already rejected. */
  private readonly finished = new Map<number, boolean>();
  private flushScheduled = false;

  constructor(private readonly channel: Pick<Channel, 'ack' | 'nack'>) {}

  /** Call for every delivery as it arrives, before its handler can finish. */
  received(message: ConsumeMessage): void {
    this.unsettled.push(message.fields.deliveryTag);
  }

  ack(message: ConsumeMessage): void {
    this.finished.set(message.fields.deliveryTag, true);
    this.scheduleFlush();
  }

  nack(message: ConsumeMessage, requeue: boolean): void {
    safely(() => this.channel.nack(message, false, requeue));
    // Settled by the nack itself: a later `multiple` ack passes over it, but must not name it.
    this.finished.set(message.fields.deliveryTag, false);
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    let lastAcked: number | undefined;
    while (this.unsettled.length > 0 && this.finished.has(this.unsettled[0] as number)) {
      const tag = this.unsettled.shift() as number;
      if (this.finished.get(tag)) lastAcked = tag;
      this.finished.delete(tag);
    }
    if (lastAcked === undefined) return;
    const upTo = lastAcked;
    safely(() => this.channel.ack({ fields: { deliveryTag: upTo } } as ConsumeMessage, true));
  }
}

/** The channel may have closed meanwhile; the broker then redelivers, so there is nothing to do. */
function safely(action: () => void): void {
  try {
    action();
  } catch {
    // ignored on purpose, see above
  }
}
