/**
 * What the service does with each campaign and publisher event: keeps the review queue's count, tells
 * the owner of a changed record (when their `reviews` setting is on), and tells the administrators with
 * `queue` on how many records wait, at most once per QUEUE_SUMMARY_INTERVAL_MS, when a record arrives.
 * A change older than NOTIFICATION_MAX_AGE_MS when its event arrives is counted but not announced: the
 * events parked before the service first ran, or after a long outage, are news no more.
 */
import type { Clock, Logger } from '@pilot/platform';
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
  /** Changes older than this are not announced any more. */
  maxAgeMs: number;
  clock: Clock;
  logger: Logger;
}

export class Notify {
  constructor(private readonly options: NotifyOptions) {}

  async handle(event: KnownEvent): Promise<void> {
    const { sender, settings, publicBaseUrl } = this.options;
    const queueState = reviewQueueStateOf(event);
    const now = this.options.clock.now();
    if (queueState) await this.options.queue.observe(queueState.recordKey, queueState.waiting, event.aggregateVersion, now);
    if (!sender.enabled) return;
    if (now.getTime() - Date.parse(event.occurredAt) > this.options.maxAgeMs) {
      this.options.logger.info({ eventId: event.id, eventType: event.type, occurredAt: event.occurredAt }, 'change too old to announce');
      return;
    }

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
