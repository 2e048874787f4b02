/**
 * The publisher key read model: the only thing the ad and delivery endpoints consult to authenticate a
 * publisher. publisher-identity writes it before it answers an approval, key generation, pause or
 * rejection; readers never call publisher-identity. Layout in Redis (under a deployment prefix):
 *
 *   <prefix>publisher:<id>    hash {status, ownerAccountId, type, keyHash, testKeyHash, previousKeyHash,
 *                             previousKeyExpiresAt, version, incarnation}
 *                             the authority: a live key works only while it is this entry's keyHash, or its
 *                             previousKeyHash before previousKeyExpiresAt (ms since the epoch, compared with
 *                             the reader's clock at lookup: a rolling deploy); a test key (sandbox) only
 *                             while it is its testKeyHash. The status covers every key of the entry at once.
 *   <prefix>key:<sha256>      hash {publisherId}: an index from a key's hash to its publisher (either kind)
 *
 * `version` is the record's version in publisher-identity's database and `incarnation` names that
 * database: versions are comparable only within one incarnation, so entries left in
 * Redis by another database (a fresh local run, a restored backup) never block the writes of this one, and
 * the sweep removes them.
 *
 * Scripts read the publisher entry named by the key entry, a key they cannot declare in advance: the read
 * model needs one Redis (or a cluster slot for the whole prefix), not keys spread over a cluster.
 */
import type { Redis } from 'ioredis';
import { systemClock, type Clock } from '@pilot/platform';
import { hashApiKey, keyKindOf, type KeyKind } from '../key-format';
import { keyReadModelCommandsOn } from './lua-commands';

export type PlatformType = 'bot' | 'channel';

export interface KeyOwner {
  publisherId: number;
  ownerAccountId: string;
  type: PlatformType;
}

/** The current key's owner and the publisher's status, whatever it is, and which of its keys this is. */
export interface KeyHolder extends KeyOwner {
  status: string;
  /** 'test': the platform's sandbox key, usable whatever the status; its answers are never counted. */
  keyKind: KeyKind;
}

/** What publisher-identity writes for one publisher: its state at `version` of database `incarnation`. */
export interface PublisherEntry extends KeyOwner {
  status: string;
  /** SHA-256 of the current key, null when it has none. */
  keyHash: string | null;
  /** SHA-256 of the current test key, null when it has none (absent: none). */
  testKeyHash?: string | null;
  /** SHA-256 of the previous live key, which works until `previousKeyExpiresAt` (absent or null: none). */
  previousKeyHash?: string | null;
  previousKeyExpiresAt?: Date | null;
  version: number;
  incarnation: string;
}

/** A SCAN pattern matching names that start with `prefix` literally. */
function startingWith(prefix: string): string {
  return `${prefix.replace(/[*?[\]\\]/g, (char) => `\\${char}`)}*`;
}

export class KeyReadModel {
  private readonly commands: ReturnType<typeof keyReadModelCommandsOn>;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly clock: Clock = systemClock,
  ) {
    this.commands = keyReadModelCommandsOn(redis);
  }

  private keyEntry(keyHash: string): string {
    return `${this.prefix}key:${keyHash}`;
  }

  private get publisherPrefix(): string {
    return `${this.prefix}publisher:`;
  }

  private publisherEntry(publisherId: number): string {
    return `${this.publisherPrefix}${publisherId}`;
  }

  /**
   * Reader: the publisher whose current key (live or test, told by the key's prefix) this is, or whose
   * previous live key before its expiry by this reader's clock, with its status (any), or null (unknown,
   * revoked, expired). One script, one round trip, for either kind.
   */
  async checkKey(key: string): Promise<KeyHolder | null> {
    const keyKind = keyKindOf(key);
    const keyHash = hashApiKey(key);
    const field = keyKind === 'test' ? 'testKeyHash' : 'keyHash';
    const found = await this.commands.checkKey(this.keyEntry(keyHash), this.publisherPrefix, keyHash, field);
    if (!found) return null;
    const [id, status, ownerAccountId, type, previousKeyExpiresAt] = found;
    const publisherId = Number(id);
    if (!Number.isSafeInteger(publisherId) || !ownerAccountId || !status) return null;
    if (previousKeyExpiresAt && !(this.clock.now().getTime() < Number(previousKeyExpiresAt))) return null;
    return { publisherId, ownerAccountId, type: type === 'channel' ? 'channel' : 'bot', status, keyKind };
  }

  /** Reader: the approved publisher this live key belongs to, or null (unknown, revoked, not approved, a test key). */
  async findKeyOwner(key: string): Promise<KeyOwner | null> {
    const holder = await this.checkKey(key);
    if (!holder || holder.status !== 'approved' || holder.keyKind !== 'live') return null;
    return { publisherId: holder.publisherId, ownerAccountId: holder.ownerAccountId, type: holder.type };
  }

  /** Reader: the last status publisher-identity wrote for a publisher, or null when unknown. */
  async publisherStatus(publisherId: number): Promise<string | null> {
    return (await this.redis.hget(this.publisherEntry(publisherId), 'status')) ?? null;
  }

  /**
   * Writer (publisher-identity only): the publisher's state, its one live key, its previous live key with
   * its expiry, and its one test key, and
   * the removal of `revokedKeyHashes`, in one atomic script. Applied unless this database already wrote a newer version
   * (equal versions rewrite), so a delayed write can never roll a pause or rotation back. Returns false
   * when a newer version was there and nothing changed.
   */
  async writePublisher(entry: PublisherEntry, revokedKeyHashes: string[] = []): Promise<boolean> {
    const publisherEntry = this.publisherEntry(entry.publisherId);
    const testKeyHash = entry.testKeyHash ?? null;
    const previous = entry.previousKeyHash && entry.previousKeyExpiresAt ? { hash: entry.previousKeyHash, expiresAt: entry.previousKeyExpiresAt } : null;
    const keys = [
      publisherEntry,
      entry.keyHash ? this.keyEntry(entry.keyHash) : publisherEntry,
      testKeyHash ? this.keyEntry(testKeyHash) : publisherEntry,
      previous ? this.keyEntry(previous.hash) : publisherEntry,
      ...revokedKeyHashes.map((hash) => this.keyEntry(hash)),
    ];
    const applied = await this.commands.writePublisher(
      keys.length,
      ...keys,
      entry.incarnation,
      String(entry.version),
      entry.status,
      entry.ownerAccountId,
      entry.type,
      String(entry.publisherId),
      entry.keyHash ?? '',
      testKeyHash ?? '',
      previous?.hash ?? '',
      previous ? String(previous.expiresAt.getTime()) : '',
    );
    return applied === 1;
  }

  /**
   * Writer: removes what no longer belongs to the model: publisher entries written by another database
   * incarnation and key entries that are not their publisher's current key. Returns how many were removed.
   */
  async sweep(incarnation: string): Promise<number> {
    let removed = 0;
    for await (const names of this.redis.scanStream({ match: startingWith(this.publisherPrefix), count: 500 }) as AsyncIterable<string[]>) {
      for (const name of names) removed += await this.commands.sweepPublisher(name, incarnation);
    }
    const keyPrefix = `${this.prefix}key:`;
    for await (const names of this.redis.scanStream({ match: startingWith(keyPrefix), count: 500 }) as AsyncIterable<string[]>) {
      for (const name of names) removed += await this.commands.sweepKey(name, this.publisherPrefix, name.slice(keyPrefix.length));
    }
    return removed;
  }
}
