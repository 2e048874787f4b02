/** The notification service's own metrics: what happened to the messages it sends. */
import { counterIn, gaugeIn, type Registry } from '@pilot/platform';

export type SendCount = 'sent' | 'failed' | 'retried' | 'blocked';

export interface NotificationCounters {
  /** One message taken (sent), refused for good (failed), tried again (retried) or answered 403 (blocked). */
  count(outcome: SendCount, kind: 'review' | 'queue', reason?: string): void;
}

/**
 * `pilot_notifications_total` by outcome (sent, failed, retried, blocked), kind (review: an owner's
 * record; queue: the administrators' summary) and reason (the platform's status, or why an attempt was
 * tried again; `none` for the others).
 */
export function notificationCounters(registry: Registry): NotificationCounters {
  const messages = counterIn(registry, 'pilot_notifications_total', 'Bot messages by outcome: sent, failed (refused for good), retried (attempts tried again), blocked (403)', [
    'outcome',
    'kind',
    'reason',
  ]);
  return { count: (outcome, kind, reason = 'none') => messages.inc({ outcome, kind, reason }) };
}

/**
 * `pilot_notification_backlog_messages`: events waiting in the service's queue, as the broker counts them
 * (every replica reports the same queue; alerts take the max).
 */
export function registerNotificationBacklog(registry: Registry, depth: () => Promise<number>): void {
  gaugeIn(registry, 'pilot_notification_backlog_messages', 'Events waiting in the notification queue (ready, not yet delivered to a replica)', [], async (gauge) => {
    gauge.set(await depth());
  });
}
