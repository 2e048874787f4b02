import { asInfrastructureFault } from '@pilot/faults';
import type { Redis } from 'ioredis';
import { KeyReadModel, type KeyHolder, type KeyOwner } from './read-model';

/**
 * The read side for the services that check keys (allocation, tracking): every read has a deadline, and
 * any Redis failure is a fault of infrastructure (503), never "unknown key".
 */
export class KeyReader {
  private readonly model: KeyReadModel;

  constructor(
    redis: Redis,
    prefix: string,
    private readonly timeoutMs: number,
  ) {
    this.model = new KeyReadModel(redis, prefix);
  }

  /** The publisher whose current key this is, with its status (any), or null (unknown, revoked). */
  checkKey(key: string): Promise<KeyHolder | null> {
    return asInfrastructureFault(() => this.model.checkKey(key), this.timeoutMs, 'redis', 'key read model');
  }

  /** The approved publisher that owns this key, or null (unknown, revoked, not approved). */
  findKeyOwner(key: string): Promise<KeyOwner | null> {
    return asInfrastructureFault(() => this.model.findKeyOwner(key), this.timeoutMs, 'redis', 'key read model');
  }

  /** The publisher's current status as publisher-identity last wrote it, or null. */
  publisherStatus(publisherId: number): Promise<string | null> {
    return asInfrastructureFault(() => this.model.publisherStatus(publisherId), this.timeoutMs, 'redis', 'key read model');
  }

  async isApproved(publisherId: number): Promise<boolean> {
    return (await this.publisherStatus(publisherId)) === 'approved';
  }
}
