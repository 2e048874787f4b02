import type { NotificationSettings, NotificationSettingsBody } from '@pilot/contracts';
import { chosenAfter, settingsInForce } from '../domain/settings';
import type { NotificationDeps } from './deps';

/** PUT /api/workspace/notifications (API.md): stores what the account chose and answers the settings in force after it. */
export async function chooseSettings(deps: Pick<NotificationDeps, 'settings' | 'adminAccountIds' | 'clock'>, accountId: string, body: NotificationSettingsBody): Promise<NotificationSettings> {
  const before = await deps.settings.chosen(accountId);
  await deps.settings.choose(accountId, { reviews: body.reviews, queue: body.queue }, deps.clock.now());
  return settingsInForce(chosenAfter(before, body), deps.adminAccountIds.includes(accountId));
}
