/**
 * Accounts whose person blocked the bot (the platform answered 403): `notification_blocks`, one document
 * per account under its id with the time of the 403. Nothing is sent to them until they sign in again.
 */
import { modelOf, storedSchema, type Connection, type Model } from '@pilot/storage';

interface BlockDocument {
  _id: string;
  blockedAt: Date;
}

const blockSchema = storedSchema<BlockDocument>({
  _id: { type: String, required: true },
  blockedAt: { type: Date, required: true },
});

export class BlockRepository {
  private readonly blocks: Model<BlockDocument>;

  constructor(connection: Connection) {
    this.blocks = modelOf(connection, 'notification_blocks', blockSchema);
  }

  async blockedAt(accountId: string): Promise<Date | null> {
    return (await this.blocks.findById(accountId).lean<BlockDocument>())?.blockedAt ?? null;
  }

  async block(accountId: string, at: Date): Promise<void> {
    await this.blocks.updateOne({ _id: accountId }, { $set: { blockedAt: at } }, { upsert: true });
  }

  async unblock(accountId: string): Promise<void> {
    await this.blocks.deleteOne({ _id: accountId });
  }
}
