/**
 * Publisher facts tracking reads from the key read model in Redis (written by publisher-identity before
 * it answers an approval, key generation, pause or rejection):
 * - who owns a presented key (authenticates the delivery endpoint exactly as the ad endpoint does);
 * - whether a publisher is still approved (click links of a paused or rejected publisher answer 410).
 * Any Redis failure is a fault of infrastructure (503), never "not found".
 */
import { ServiceUnavailableError, withDeadline } from '@pilot/faults';
import { KeyReadModel, type KeyOwner } from '@pilot/key-read-model';
import type { Redis } from '@pilot/redis';

export class PublisherDirectory {
  private readonly model: KeyReadModel;

  constructor(
    redis: Redis,
    prefix: string,
    private readonly timeoutMs: number,
  ) {
    this.model = new KeyReadModel(redis, prefix);
  }

  private async guarded<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await withDeadline(work(), this.timeoutMs, 'redis');
    } catch (error) {
      if (error instanceof ServiceUnavailableError) throw error;
      throw new ServiceUnavailableError('redis', `key read model: ${(error as Error).message}`);
    }
  }

  findKeyOwner(key: string): Promise<KeyOwner | null> {
    return this.guarded(() => this.model.findKeyOwner(key));
  }

  async isApproved(publisherId: number): Promise<boolean> {
    return (await this.guarded(() => this.model.publisherStatus(publisherId))) === 'approved';
  }
}
