import { asInfrastructureFault, systemClock, type Clock } from '@pilot/platform';
import type { Redis } from 'ioredis';
import { bearerKeyOf } from '../key-format';
import { KeyReadModel, type KeyHolder, type KeyOwner } from './read-model';

/** Why a network call's key is refused (API.md): the same codes on every endpoint that takes a key. */
export type KeyRefusal = { code: 'missing_key' | 'invalid_key' | 'publisher_not_approved'; detail: string };

const REFUSALS = {
  missing: { code: 'missing_key', detail: 'Send the publisher key as Authorization: Bearer <key>' },
  invalid: { code: 'invalid_key', detail: 'The publisher key is invalid or revoked' },
  notApproved: { code: 'publisher_not_approved', detail: 'The publisher is not approved' },
} as const satisfies Record<string, KeyRefusal>;

/** Whether the header offers a bearer credential at all: another scheme (Basic, ...) or none is a missing key. */
function carriesBearerCredentials(authorization: string | undefined): boolean {
  return authorization !== undefined && /^bearer\s+\S/i.test(authorization.trim());
}

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
    clock: Clock = systemClock,
  ) {
    this.model = new KeyReadModel(redis, prefix, clock);
  }

  /** The publisher whose current key (or unexpired previous live key) this is, with its status (any), or null (unknown, revoked, expired). */
  checkKey(key: string): Promise<KeyHolder | null> {
    return asInfrastructureFault(() => this.model.checkKey(key), this.timeoutMs, 'redis', 'key read model');
  }

  /**
   * The publisher an `Authorization` header names, or why it is refused: no bearer credential (no header,
   * another scheme such as Basic, or the scheme alone: missing_key), a
   * malformed, unknown or revoked key (invalid_key), the current live key of a platform that is not
   * approved (publisher_not_approved). A current test key is accepted whatever the platform's status
   * (the sandbox): the holder's `keyKind` tells the caller to answer it as a test.
   */
  async authenticate(authorization: string | undefined): Promise<{ ok: true; holder: KeyHolder } | { ok: false; refusal: KeyRefusal }> {
    if (!carriesBearerCredentials(authorization)) return { ok: false, refusal: REFUSALS.missing };
    const key = bearerKeyOf(authorization);
    const holder = key ? await this.checkKey(key) : null;
    if (!holder) return { ok: false, refusal: REFUSALS.invalid };
    if (holder.keyKind === 'live' && holder.status !== 'approved') return { ok: false, refusal: REFUSALS.notApproved };
    return { ok: true, holder };
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
