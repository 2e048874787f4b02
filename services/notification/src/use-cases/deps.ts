/** What notification's use cases are given by start.ts: the stores, the Bot API, the send limit, this process's sends, the settings of the service and the clock. */
import type { Clock, Logger, RedisLimiter } from '@pilot/platform';
import type { BotApi } from '../bot/bot-api';
import type { BlockRepository } from '../data/block-repository';
import type { DeliveryRepository } from '../data/delivery-repository';
import type { ReviewQueueRepository } from '../data/review-queue-repository';
import type { SettingsRepository } from '../data/settings-repository';
import type { NotificationCounters } from '../http/notification-metrics';
import type { SendingProcess } from './sending-process';

export interface NotificationDeps {
  deliveries: DeliveryRepository;
  blocks: BlockRepository;
  settings: SettingsRepository;
  queue: ReviewQueueRepository;
  /** null without TELEGRAM_BOT_TOKEN: nothing is sent. */
  bot: BotApi | null;
  /** BOT_SEND_LIMIT_PER_SECOND over every replica. */
  limiter: RedisLimiter;
  /** When the account last signed in (publisher-identity), null if never. */
  lastSignInAt: (accountId: string) => Promise<Date | null>;
  counters: NotificationCounters;
  leaseMs: number;
  /** Pauses between attempts that got no answer (ms); the last one repeats. */
  retryPausesMs?: number[];
  /** This process's claims, messages in flight and stop. */
  sending: SendingProcess;
  /** ADMIN_ACCOUNT_IDS. */
  adminAccountIds: readonly string[];
  publicBaseUrl: string;
  /** QUEUE_SUMMARY_INTERVAL_MS. */
  summaryIntervalMs: number;
  /** NOTIFICATION_MAX_AGE_MS: changes older than this are not announced any more. */
  maxAgeMs: number;
  clock: Clock;
  logger: Logger;
}
