/**
 * The publisher key read model: the only thing the ad and delivery endpoints consult to authenticate a
 * publisher. publisher-identity writes it before it answers an approval, key generation, pause or
 * rejection; readers never call publisher-identity. Layout in Redis (under a deployment prefix):
 *
 *   <prefix>key:<sha256 of the key>   hash {publisherId, ownerAccountId, type, keyHash}
 *                                     present only while the key is current AND the publisher approved
 *   <prefix>publisher:<id>            hash {status, ownerAccountId, type, version?}  (version: see
 *                                     writePublisherVersioned; readers ignore it)
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { asInfrastructureFault } from '@pilot/faults';
import type { Redis } from 'ioredis';

export type PlatformType = 'bot' | 'channel';

export interface KeyOwner {
  publisherId: number;
  ownerAccountId: string;
  type: PlatformType;
}

export interface PublisherRecordState {
  publisherId: number;
  status: string;
  ownerAccountId: string;
  type: PlatformType;
}

// ---- key format: recognisable by secret scanners, checksummed so a mistyped key is refused early ----

export const API_KEY_PREFIX = 'pilot_pk_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const BODY_LENGTH = 32; // 32 base62 characters: about 190 bits of randomness
const CHECKSUM_LENGTH = 6;
const API_KEY_PATTERN = new RegExp(`^${API_KEY_PREFIX}[0-9A-Za-z]{${BODY_LENGTH + CHECKSUM_LENGTH}}$`);

function toBase62(value: number, length: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < length; i += 1) {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

function checksumOf(body: string): string {
  return toBase62(crc32(body), CHECKSUM_LENGTH);
}

export function generateApiKey(): string {
  const bytes = randomBytes(BODY_LENGTH * 2);
  let body = '';
  // Rejection sampling keeps every character uniform over the 62 symbols.
  for (const byte of bytes) {
    if (byte < 248 && body.length < BODY_LENGTH) body += BASE62[byte % 62];
  }
  while (body.length < BODY_LENGTH) {
    const [byte] = randomBytes(1);
    if (byte !== undefined && byte < 248) body += BASE62[byte % 62];
  }
  return `${API_KEY_PREFIX}${body}${checksumOf(body)}`;
}

/** True when the key has our shape and its checksum matches; says nothing about whether it is current. */
export function isWellFormedApiKey(candidate: string): boolean {
  if (!API_KEY_PATTERN.test(candidate)) return false;
  const body = candidate.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + BODY_LENGTH);
  const checksum = candidate.slice(API_KEY_PREFIX.length + BODY_LENGTH);
  return safeEqual(checksum, checksumOf(body));
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The key from an `Authorization: Bearer <key>` header, or null when absent or malformed. */
export function bearerKeyOf(authorization: string | undefined): string | null {
  if (typeof authorization !== 'string') return null;
  const match = /^Bearer ([\x21-\x7e]{1,200})$/.exec(authorization.trim());
  if (!match || !match[1]) return null;
  return isWellFormedApiKey(match[1]) ? match[1] : null;
}

// ---- Redis layout ----

// KEYS: publisher entry, current key entry (or the publisher entry when none), revoked key entries.
// ARGV: version, status, ownerAccountId, type, publisherId, current key hash ('' when none).
const VERSIONED_WRITE_SCRIPT = `
local stored = tonumber(redis.call('HGET', KEYS[1], 'version') or '0') or 0
if stored > tonumber(ARGV[1]) then return 0 end
for i = 3, #KEYS do redis.call('DEL', KEYS[i]) end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'ownerAccountId', ARGV[3], 'type', ARGV[4], 'version', ARGV[1])
if ARGV[6] ~= '' then
  if ARGV[2] == 'approved' then
    redis.call('HSET', KEYS[2], 'publisherId', ARGV[5], 'ownerAccountId', ARGV[3], 'type', ARGV[4], 'keyHash', ARGV[6])
  else
    redis.call('DEL', KEYS[2])
  end
end
return 1
`;

export class KeyReadModel {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private keyEntry(keyHash: string): string {
    return `${this.prefix}key:${keyHash}`;
  }

  private publisherEntry(publisherId: number): string {
    return `${this.prefix}publisher:${publisherId}`;
  }

  /** Reader: the approved publisher this key belongs to, or null (unknown, revoked, not approved). */
  async findKeyOwner(key: string): Promise<KeyOwner | null> {
    const keyHash = hashApiKey(key);
    const entry = await this.redis.hgetall(this.keyEntry(keyHash));
    if (!entry.keyHash || !safeEqual(entry.keyHash, keyHash)) return null;
    const publisherId = Number(entry.publisherId);
    if (!Number.isSafeInteger(publisherId) || !entry.ownerAccountId) return null;
    return { publisherId, ownerAccountId: entry.ownerAccountId, type: entry.type === 'channel' ? 'channel' : 'bot' };
  }

  /** Reader: the last status publisher-identity wrote for a publisher, or null when unknown. */
  async publisherStatus(publisherId: number): Promise<string | null> {
    return (await this.redis.hget(this.publisherEntry(publisherId), 'status')) ?? null;
  }

  /**
   * Writer (publisher-identity only): records the publisher's state and which key, if any, may be used.
   * `currentKeyHash` is honoured only while the status is approved; `revokedKeyHash` is removed in the
   * same MULTI, so there is no moment where both an old and a new key, or a key of a paused publisher, work.
   */
  async writePublisher(state: PublisherRecordState, currentKeyHash: string | null, revokedKeyHashes: string[] = []): Promise<void> {
    const multi = this.redis.multi();
    for (const hash of revokedKeyHashes) multi.del(this.keyEntry(hash));
    multi.hset(this.publisherEntry(state.publisherId), {
      status: state.status,
      ownerAccountId: state.ownerAccountId,
      type: state.type,
    });
    if (currentKeyHash) {
      if (state.status === 'approved') {
        multi.hset(this.keyEntry(currentKeyHash), {
          publisherId: String(state.publisherId),
          ownerAccountId: state.ownerAccountId,
          type: state.type,
          keyHash: currentKeyHash,
        });
      } else {
        multi.del(this.keyEntry(currentKeyHash));
      }
    }
    const results = await multi.exec();
    const failed = results?.find(([error]) => error);
    if (!results || failed) throw failed?.[0] ?? new Error('key read model write was discarded');
  }

  /**
   * Writer (publisher-identity only): writePublisher, applied only if no newer `version` of this
   * publisher was written before (equal versions rewrite). One Lua script, so it is atomic: a write that
   * was delayed (a slow request, a rebuild racing a live change) can never roll a pause or rotation back.
   * Returns false when a newer version was already there and nothing changed.
   */
  async writePublisherVersioned(
    state: PublisherRecordState,
    version: number,
    currentKeyHash: string | null,
    revokedKeyHashes: string[] = [],
  ): Promise<boolean> {
    const publisherEntry = this.publisherEntry(state.publisherId);
    const keys = [publisherEntry, currentKeyHash ? this.keyEntry(currentKeyHash) : publisherEntry, ...revokedKeyHashes.map((hash) => this.keyEntry(hash))];
    const applied = await this.redis.eval(
      VERSIONED_WRITE_SCRIPT,
      keys.length,
      ...keys,
      String(version),
      state.status,
      state.ownerAccountId,
      state.type,
      String(state.publisherId),
      currentKeyHash ?? '',
    );
    return applied === 1;
  }
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
  ) {
    this.model = new KeyReadModel(redis, prefix);
  }

  /** The approved publisher that owns this key, or null (unknown, revoked). */
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
