/** GET and PUT /api/workspace/notifications (API.md), and the settings the senders consult. */
import type { Clock } from '@pilot/platform';
import type { NotificationSettings, NotificationSettingsBody } from '@pilot/contracts';
import type { SettingsRepository } from '../data/settings-repository';
import { chosenAfter, settingsInForce } from '../domain/settings';

export class NotificationSettingsService {
  private readonly admins: ReadonlySet<string>;

  constructor(
    private readonly repository: SettingsRepository,
    adminAccountIds: readonly string[],
    private readonly clock: Clock,
  ) {
    this.admins = new Set(adminAccountIds);
  }

  /** Administrator rights decided here from ADMIN_ACCOUNT_IDS, as publisher-identity decides them. */
  async inForce(accountId: string): Promise<NotificationSettings> {
    return settingsInForce(await this.repository.chosen(accountId), this.admins.has(accountId));
  }

  async choose(accountId: string, body: NotificationSettingsBody): Promise<NotificationSettings> {
    const before = await this.repository.chosen(accountId);
    await this.repository.choose(accountId, { reviews: body.reviews, queue: body.queue }, this.clock.now());
    return settingsInForce(chosenAfter(before, body), this.admins.has(accountId));
  }
}
