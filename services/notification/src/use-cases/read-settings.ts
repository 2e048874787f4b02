import type { NotificationSettings } from '@pilot/contracts';
import { settingsInForce } from '../domain/settings';
import type { NotificationDeps } from './deps';

/**
 * GET /api/workspace/notifications (API.md), and the settings the senders consult: those in force, with
 * administrator rights decided here from ADMIN_ACCOUNT_IDS, as publisher-identity decides them.
 */
export async function readSettings(deps: Pick<NotificationDeps, 'settings' | 'adminAccountIds'>, accountId: string): Promise<NotificationSettings> {
  return settingsInForce(await deps.settings.chosen(accountId), deps.adminAccountIds.includes(accountId));
}
