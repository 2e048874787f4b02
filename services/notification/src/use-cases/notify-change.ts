/**
 * What the service does with each campaign and publisher event: keeps the review queue's count, tells
 * the owner of a changed record (when their `reviews` setting is on), and tells the administrators with
 * `queue` on how many records wait, at most once per QUEUE_SUMMARY_INTERVAL_MS, when a record arrives.
 * A change older than NOTIFICATION_MAX_AGE_MS when its event arrives is counted but not announced: the
 * events parked before the service first ran, or after a long outage, are news no more.
 */
import type { KnownEvent } from '@pilot/contracts';
import { entersReviewQueue, ownerNoticeOf, queueSummaryText, reviewQueueStateOf } from '../domain/notices';
import type { NotificationDeps } from './deps';
import { readSettings } from './read-settings';
import { sendMessage } from './send-message';

export async function notifyChange(deps: NotificationDeps, event: KnownEvent): Promise<void> {
  const { publicBaseUrl } = deps;
  const queueState = reviewQueueStateOf(event);
  const now = deps.clock.now();
  if (queueState) await deps.queue.observe(queueState.recordKey, queueState.waiting, event.aggregateVersion, now);
  if (deps.bot === null) return;
  if (now.getTime() - Date.parse(event.occurredAt) > deps.maxAgeMs) {
    deps.logger.info({ eventId: event.id, eventType: event.type, occurredAt: event.occurredAt }, 'change too old to announce');
    return;
  }

  const notice = ownerNoticeOf(event, publicBaseUrl);
  if (notice && (await readSettings(deps, notice.accountId)).reviews) {
    await sendMessage(deps, { deliveryId: `${event.id}:${notice.accountId}`, eventId: event.id, accountId: notice.accountId, kind: 'review', text: notice.text });
  }
  if (entersReviewQueue(event)) {
    for (const admin of deps.adminAccountIds) await summarize(deps, event, admin);
  }
}

async function summarize(deps: NotificationDeps, event: KnownEvent, admin: string): Promise<void> {
  const { queue, summaryIntervalMs } = deps;
  if (!(await readSettings(deps, admin)).queue) return;
  const now = deps.clock.now();
  const interval = Math.floor(now.getTime() / summaryIntervalMs);
  if (!(await queue.claimSummary(admin, event.id, interval, summaryIntervalMs, now))) return;
  const text = queueSummaryText(await queue.waitingCount(), deps.publicBaseUrl);
  await sendMessage(deps, { deliveryId: `${event.id}:queue:${admin}`, eventId: event.id, accountId: admin, kind: 'queue', text });
}
