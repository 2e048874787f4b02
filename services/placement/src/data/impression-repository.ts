/**
 * Website placement impressions, kept apart from the network's delivery totals (their own collection in
 * this service's own database). FerretDB 1.24 loses concurrent `$inc`s on one document (measured in
 * docs/decisions/0002: 20 concurrent increments grew a counter by 3 or 4), so every impression is its own
 * inserted document and a placement's count is a count of documents.
 */
import type { Collection, Db } from 'mongodb';
import type { Slot } from '../domain/slots';

interface ImpressionDocument {
  placementId: string;
  slot: Slot;
  at: Date;
}

export class ImpressionRepository {
  private readonly impressions: Collection<ImpressionDocument>;

  constructor(db: Db) {
    this.impressions = db.collection<ImpressionDocument>('impressions');
  }

  async ensureIndexes(): Promise<void> {
    await this.impressions.createIndex({ placementId: 1 });
  }

  async record(placementId: string, slot: Slot, at: Date): Promise<void> {
    await this.impressions.insertOne({ placementId, slot, at });
  }

  async countFor(placementId: string): Promise<number> {
    return this.impressions.countDocuments({ placementId });
  }
}
