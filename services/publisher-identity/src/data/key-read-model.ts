/**
 * The Redis key read model that allocation and tracking consult to authenticate publishers
 * (@pilot/publisher-keys). This service is its only writer: it writes BEFORE answering an approval, key
 * generation (live or test), pause or rejection, so revocation has no propagation window, and it rewrites everything
 * from the database at start (Redis may have lost it) and periodically (repair). Every entry carries this
 * database's incarnation, so entries another database left under the same prefix neither block these
 * writes nor survive the sweep.
 */
import { KeyReadModel, readKeyUses, type KeyUses } from '@pilot/publisher-keys';
import type { Redis } from '@pilot/platform';
import type { PublisherState } from '../domain/publisher';

export interface ReadModelRecord extends PublisherState {
  _id: number | string;
  version: number;
}

export class PublisherKeyWriter {
  private readonly model: KeyReadModel;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly incarnation: string,
  ) {
    this.model = new KeyReadModel(redis, prefix);
  }

  /** When the platform's live and test keys were last used for an ad request, as allocation noted it. */
  lastUses(publisherId: number): Promise<KeyUses> {
    return readKeyUses(this.redis, this.prefix, publisherId);
  }

  /**
   * Writes the record as it is: its status, its current key and its previous key until its expiry (usable
   * only while approved, both by the one status), earlier keys removed. Versioned: a delayed write of an older version never overwrites a newer one; false then.
   */
  write(record: ReadModelRecord): Promise<boolean> {
    return this.writeAs(record, record.status, record.keyHash, record.revokedKeyHashes ?? []);
  }

  /** Fail-closed step before a new test key or a test key revocation is stored: the current test key stops working at once. */
  async revokeTestKeyAhead(record: ReadModelRecord): Promise<void> {
    const revoked = record.testKeyHash ? [record.testKeyHash, ...(record.revokedKeyHashes ?? [])] : (record.revokedKeyHashes ?? []);
    await this.writeAs(record, record.status, record.keyHash, revoked, null);
  }

  /** Fail-closed step before the previous live key's end is stored: it stops working at once. */
  async revokePreviousKeyAhead(record: ReadModelRecord): Promise<void> {
    const revoked = record.previousKeyHash ? [record.previousKeyHash, ...(record.revokedKeyHashes ?? [])] : (record.revokedKeyHashes ?? []);
    await this.writeAs({ ...record, previousKeyHash: null, previousKeyExpiresAt: null }, record.status, record.keyHash, revoked);
  }

  /**
   * Fail-closed step before a pause or rejection is stored: the publisher shows `status` at once, so from
   * here on its key is refused whatever happens to the database write. Same version as the record read:
   * if the change then fails, rewriting the record restores it.
   */
  async statusAhead(record: ReadModelRecord, status: string): Promise<void> {
    await this.writeAs(record, status, record.keyHash, record.revokedKeyHashes ?? []);
  }

  /**
   * Fail-closed step before a rotation is stored: the previous key (if any) stops working at once, and so
   * does the current key unless `keepCurrent` (it becomes the previous key, with a grace period).
   */
  async revokeKeyAhead(record: ReadModelRecord, keepCurrent = false): Promise<void> {
    const ending = [record.previousKeyHash, keepCurrent ? null : record.keyHash].filter((hash): hash is string => Boolean(hash));
    const revoked = [...ending, ...(record.revokedKeyHashes ?? [])];
    await this.writeAs({ ...record, previousKeyHash: null, previousKeyExpiresAt: null }, record.status, keepCurrent ? record.keyHash : null, revoked);
  }

  /** Removes entries of other database incarnations and key entries that are no longer current. */
  sweep(): Promise<number> {
    return this.model.sweep(this.incarnation);
  }

  private writeAs(
    record: ReadModelRecord,
    status: string,
    keyHash: string | null,
    revokedKeyHashes: string[],
    testKeyHash: string | null = record.testKeyHash ?? null,
  ): Promise<boolean> {
    return this.model.writePublisher(
      {
        publisherId: Number(record._id),
        status,
        ownerAccountId: record.ownerAccountId,
        type: record.type,
        keyHash,
        testKeyHash,
        previousKeyHash: record.previousKeyHash ?? null,
        previousKeyExpiresAt: record.previousKeyExpiresAt ? new Date(record.previousKeyExpiresAt) : null,
        version: record.version,
        incarnation: this.incarnation,
      },
      revokedKeyHashes,
    );
  }
}
