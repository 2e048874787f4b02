/**
 * People's notification settings: `notification_settings`, one document per account under its id, with the
 * fields it chose (null: never chosen, the default applies). Read and written by `_id` alone.
 */
import { modelOf, storedSchema, type Connection, type Model } from '@pilot/storage';
import { NOTHING_CHOSEN, type ChosenSettings } from '../domain/settings';

interface SettingsDocument {
  _id: string;
  reviews: boolean | null;
  queue: boolean | null;
  updatedAt: Date;
}

const settingsSchema = storedSchema<SettingsDocument>({
  _id: { type: String, required: true },
  reviews: { type: Boolean, default: null },
  queue: { type: Boolean, default: null },
  updatedAt: { type: Date, required: true },
});

export class SettingsRepository {
  private readonly settings: Model<SettingsDocument>;

  constructor(connection: Connection) {
    this.settings = modelOf(connection, 'notification_settings', settingsSchema);
  }

  async chosen(accountId: string): Promise<ChosenSettings> {
    const document = await this.settings.findById(accountId).lean<SettingsDocument>();
    return document ? { reviews: document.reviews ?? null, queue: document.queue ?? null } : NOTHING_CHOSEN;
  }

  /** Writes only the fields given, so two tabs changing different fields both keep their change. */
  async choose(accountId: string, changed: Partial<ChosenSettings>, at: Date): Promise<void> {
    const fields = Object.fromEntries(Object.entries(changed).filter(([, value]) => value !== undefined));
    await this.settings.updateOne({ _id: accountId }, { $set: { ...fields, updatedAt: at } }, { upsert: true });
  }
}
