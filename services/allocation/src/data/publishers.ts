/**
 * Who presents a key, read from the key read model in Redis that publisher-identity writes before it
 * answers an approval, key generation, pause or rejection. No call to publisher-identity, no write.
 */
import { KeyReadModel, type KeyOwner } from '@pilot/key-read-model';
import type { Redis } from '@pilot/redis';
import { guardedRedis } from './guard';

export class PublisherKeys {
  private readonly model: KeyReadModel;

  constructor(
    redis: Redis,
    prefix: string,
    private readonly timeoutMs: number,
  ) {
    this.model = new KeyReadModel(redis, prefix);
  }

  /** The approved publisher that owns this key, or null (unknown, revoked). */
  findKeyOwner(key: string): Promise<KeyOwner | null> {
    return guardedRedis(() => this.model.findKeyOwner(key), this.timeoutMs, 'key read model');
  }

  /** The publisher's current status as publisher-identity last wrote it, or null. */
  statusOf(publisherId: number): Promise<string | null> {
    return guardedRedis(() => this.model.publisherStatus(publisherId), this.timeoutMs, 'key read model');
  }
}
