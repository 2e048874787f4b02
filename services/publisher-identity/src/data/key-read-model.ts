/**
 * The Redis key read model that allocation and tracking consult to authenticate publishers
 * (@pilot/key-read-model). This service is its only writer: it writes BEFORE answering an approval, key
 * generation, pause or rejection, so revocation has no propagation window, and it rewrites everything
 * from the database at start (Redis keeps nothing on disk here) and periodically (repair).
 */
import { KeyReadModel } from '@pilot/key-read-model';
import type { Redis } from '@pilot/redis';
import type { PublisherState } from '../domain/publisher';

export interface ReadModelRecord extends PublisherState {
  _id: number | string;
  version: number;
}

export class PublisherKeyWriter {
  private readonly model: KeyReadModel;

  constructor(redis: Redis, prefix: string) {
    this.model = new KeyReadModel(redis, prefix);
  }

  /**
   * Writes the record as it is: its status, its current key (usable only while approved), earlier keys
   * removed. Versioned: a delayed write of an older version never overwrites a newer one.
   */
  async write(record: ReadModelRecord): Promise<void> {
    await this.model.writePublisherVersioned(
      { publisherId: Number(record._id), status: record.status, ownerAccountId: record.ownerAccountId, type: record.type },
      record.version,
      record.keyHash,
      record.revokedKeyHashes ?? [],
    );
  }

  /**
   * Fail-closed step before a revoking change is stored: the publisher shows `status` and `keyHash` is
   * removed, so from here on no request with it is accepted, whatever happens to the database write.
   */
  async revokeAhead(record: ReadModelRecord, status: string, keyHashes: string[]): Promise<void> {
    // Same version as the record read: if the change then fails, rewriting the record restores it.
    await this.model.writePublisherVersioned(
      { publisherId: Number(record._id), status, ownerAccountId: record.ownerAccountId, type: record.type },
      record.version,
      null,
      [...keyHashes, ...(record.revokedKeyHashes ?? [])],
    );
  }
}
