/** Notification settings as API.md fixes them (pure): what is stored, and what is in force for an account. */
import type { NotificationSettings, NotificationSettingsBody } from '@pilot/contracts';

/** What an account chose; a field it never set is null and takes its default. */
export interface ChosenSettings {
  reviews: boolean | null;
  queue: boolean | null;
}

export const NOTHING_CHOSEN: ChosenSettings = { reviews: null, queue: null };

/** Defaults: `reviews` on; `queue` on for administrators. The queue summary goes only to administrators. */
export function settingsInForce(chosen: ChosenSettings, admin: boolean): NotificationSettings {
  return { reviews: chosen.reviews ?? true, queue: admin && (chosen.queue ?? true) };
}

/** A PUT's fields over what was chosen before (a field left out keeps its value). */
export function chosenAfter(before: ChosenSettings, body: NotificationSettingsBody): ChosenSettings {
  return { reviews: body.reviews ?? before.reviews, queue: body.queue ?? before.queue };
}
