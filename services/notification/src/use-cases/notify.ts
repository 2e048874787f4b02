/**
 * What the service does with each campaign and publisher event: keeps the review queue's count, tells
 * the owner of a changed record (when their `reviews` setting is on), and tells the administrators with
 * `queue` on how many records wait, at most once per QUEUE_SUMMARY_INTERVAL_MS, when a record arrives.
 */
import type { Clock } from '@pilot/config';
import type { KnownEvent } from '@pilot/contracts';
import type { ReviewQueueRepository } from '../data/review-queue-repository';
import { entersReviewQueue, ownerNoticeOf, queueSummaryText, reviewQueueStateOf } from '../domain/notices';
import type { MessageSender } from './message-sender';
import type { NotificationSettingsService } from './settings';

export interface NotifyOptions {
  sender: MessageSender;
  settings: NotificationSettingsService;
  queue: ReviewQueueRepository;
  adminAccountIds: readonly string[];
  publicBaseUrl: string;
  summaryIntervalMs: number;
  clock: Clock;
}

export class Notify {
  constructor(private readonly options: NotifyOptions) {}

  async handle(event: KnownEvent): Promise<void> {
    const { sender, settings, publicBaseUrl } = this.options;
    const queueState = reviewQueueStateOf(event);
    if (queueState) await this.options.queue.observe(queueState.recordKey, queueState.waiting, event.aggregateVersion, this.options.clock.now());
    if (!sender.enabled) return;

    const notice = ownerNoticeOf(event, publicBaseUrl);
    if (notice && (await settings.inForce(notice.accountId)).reviews) {
      await sender.send({ deliveryId: `${event.id}:${notice.accountId}`, eventId: event.id, accountId: notice.accountId, kind: 'review', text: notice.text });
    }
    if (entersReviewQueue(event)) {
      for (const admin of this.options.adminAccountIds) await this.summarize(event, admin);
    }
  }

  private async summarize(event: KnownEvent, admin: string): Promise<void> {
    const { queue, summaryIntervalMs } = this.options;
    if (!(await this.options.settings.inForce(admin)).queue) return;
    const now = this.options.clock.now();
    const interval = Math.floor(now.getTime() / summaryIntervalMs);
    if (!(await queue.claimSummary(admin, event.id, interval, summaryIntervalMs, now))) return;
    const text = queueSummaryText(await queue.waitingCount(), this.options.publicBaseUrl);
    await this.options.sender.send({ deliveryId: `${event.id}:queue:${admin}`, eventId: event.id, accountId: admin, kind: 'queue', text });
  }
}
