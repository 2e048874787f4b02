/**
 * Publisher platforms: registration, the review state machine, and API keys whose revocation has no
 * propagation window. Every change is one VersionedStore insert (state + audit + events); the Redis key
 * read model is written before the answer, and for revoking changes (pause, reject, rotation) ALSO
 * before the database write, so a failure in between fails closed.
 */
import type { Clock } from '@pilot/config';
import { createEnvelope, type PublisherEvent, type PublisherState as PublisherEventData } from '@pilot/contracts';
import type { Principal } from '@pilot/internal-auth';
import { problems } from '@pilot/problems';
import { generateApiKey, hashApiKey } from '@pilot/api-keys';
import { asInfrastructureFault } from '@pilot/faults';
import type { Logger } from '@pilot/logging';
import { ConcurrentChangeError, type ChangeFacts } from '@pilot/versioned-store';
import {
  ACTION_NAMES,
  TRANSITIONS,
  nextStatus,
  viewOf,
  withKeyUses,
  type NewPublisherInput,
  type PublisherAction,
  type PublisherState,
  type PublisherStatus,
  type PublisherView,
} from '../domain/publisher';
import type { PublisherKeyWriter } from '../data/key-read-model';
import type { PublisherRecord, PublisherRepository } from '../data/publisher-repository';

const MAX_ATTEMPTS = 5;
const KEY_USE_READ_TIMEOUT_MS = 300;
const KEPT_REVOKED_HASHES = 20;

function stateOf(record: PublisherRecord): PublisherState {
  return {
    ownerAccountId: record.ownerAccountId,
    type: record.type,
    link: record.link,
    status: record.status,
    keyHash: record.keyHash ?? null,
    keyCreatedAt: record.keyCreatedAt ?? null,
    revokedKeyHashes: record.revokedKeyHashes ?? [],
    rejectionReason: record.rejectionReason ?? null,
    testKeyHash: record.testKeyHash ?? null,
    testKeyCreatedAt: record.testKeyCreatedAt ?? null,
  };
}

/** The test key fields of a record whose test key is revoked: none, the old one among the revoked. */
function withoutTestKey(record: PublisherRecord): Pick<PublisherState, 'testKeyHash' | 'testKeyCreatedAt' | 'revokedKeyHashes'> {
  const revoked = record.testKeyHash ? [...(record.revokedKeyHashes ?? []), record.testKeyHash] : (record.revokedKeyHashes ?? []);
  return { testKeyHash: null, testKeyCreatedAt: null, revokedKeyHashes: revoked.slice(-KEPT_REVOKED_HASHES) };
}

/** The key fields of a record whose current key is revoked: no key, the old one among the revoked. */
function withoutKey(record: PublisherRecord): Pick<PublisherState, 'keyHash' | 'keyCreatedAt' | 'revokedKeyHashes'> {
  const revoked = record.keyHash ? [...(record.revokedKeyHashes ?? []), record.keyHash] : (record.revokedKeyHashes ?? []);
  return { keyHash: null, keyCreatedAt: null, revokedKeyHashes: revoked.slice(-KEPT_REVOKED_HASHES) };
}

function eventData(id: number, state: PublisherState): PublisherEventData {
  return {
    publisherId: id,
    ownerAccountId: state.ownerAccountId,
    status: state.status,
    type: state.type,
    link: state.link,
    keyCreatedAt: state.keyCreatedAt ? new Date(state.keyCreatedAt).toISOString() : null,
  };
}

export class Publishers {
  constructor(
    private readonly repository: PublisherRepository,
    private readonly readModel: PublisherKeyWriter,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** PUBLIC_BASE_URL, shown with every platform as the base of its network calls. */
    private readonly apiBaseUrl: string,
  ) {}

  private view(record: PublisherRecord): PublisherView {
    return viewOf(record, this.apiBaseUrl);
  }

  async register(caller: Principal, input: NewPublisherInput): Promise<PublisherView> {
    const now = this.clock.now();
    const id = await this.repository.nextId(caller.accountId, now);
    const state: PublisherState = {
      ownerAccountId: caller.accountId,
      type: input.type,
      link: input.link,
      status: 'draft',
      keyHash: null,
      keyCreatedAt: null,
      revokedKeyHashes: [],
      rejectionReason: null,
      testKeyHash: null,
      testKeyCreatedAt: null,
    };
    const record = await this.repository.create(id, state, { at: now, actorAccountId: caller.accountId, action: 'created', from: null, to: 'draft' });
    return this.view(record);
  }

  async list(caller: Principal, status?: PublisherStatus): Promise<PublisherView[]> {
    const records = await this.repository.list({ ownerAccountId: caller.admin ? undefined : caller.accountId, status });
    return records.map((record) => this.view(record));
  }

  /**
   * One platform, with when its keys were last used; without those when Redis does not answer in time (the
   * page still opens). From the projection alone: a change interrupted before its projection shows once the
   * read model's rebuild rolls it forward.
   */
  async get(caller: Principal, id: number): Promise<PublisherView> {
    const view = this.view(this.visibleOf(caller, await this.repository.loadProjection(id)));
    const uses = await asInfrastructureFault(() => this.readModel.lastUses(id), KEY_USE_READ_TIMEOUT_MS, 'redis', 'key uses').catch((error: unknown) => {
      this.logger.warn({ err: error, publisherId: id }, 'key uses not read');
      return null;
    });
    return uses ? withKeyUses(view, uses) : view;
  }

  /** POST /api/workspace/publishers/:id/submit: the owner sends a draft or rejected platform for review. */
  submitPublisher(caller: Principal, id: number): Promise<PublisherView> {
    return this.transition(caller, id, 'submit');
  }

  /** POST /api/workspace/publishers/:id/approve: an administrator approves a submitted platform or resumes a paused one. */
  approvePublisher(caller: Principal, id: number): Promise<PublisherView> {
    return this.transition(caller, id, 'approve');
  }

  /** POST /api/workspace/publishers/:id/reject: an administrator refuses a submitted, approved or paused platform, with a reason; its key is revoked. */
  rejectPublisher(caller: Principal, id: number, reason: string): Promise<PublisherView> {
    return this.transition(caller, id, 'reject', reason);
  }

  /** POST /api/workspace/publishers/:id/pause: an administrator stops an approved platform, with an optional reason. */
  pausePublisher(caller: Principal, id: number, reason: string | null): Promise<PublisherView> {
    return this.transition(caller, id, 'pause', reason);
  }

  /**
   * What submit, approve, reject and pause share: 404 for records the caller may not see, 403 for a role it
   * lacks, 409 from a wrong state.
   */
  private async transition(caller: Principal, id: number, action: PublisherAction, reason: string | null = null): Promise<PublisherView> {
    const rule = TRANSITIONS[action];
    for (let attempt = 1; ; attempt += 1) {
      const record = await this.visible(caller, id);
      if (rule.who === 'owner' && record.ownerAccountId !== caller.accountId) {
        throw problems.forbidden('owner_only', 'Only the owner of this platform may do this');
      }
      if (rule.who === 'admin' && !caller.admin) throw problems.forbidden('admin_only', 'Only an administrator may do this');
      // Ownership is verified independently (SPEC.md): as for campaigns, nobody reviews their own record.
      if ((action === 'approve' || action === 'reject') && record.ownerAccountId === caller.accountId) {
        throw problems.forbidden('own_platform_review', 'An owner cannot review its own platform');
      }
      const to = nextStatus(record.status, action);
      if (!to) throw problems.conflict('invalid_transition', `A ${record.status} platform cannot be ${ACTION_NAMES[action]}`);
      const now = this.clock.now();
      const next: PublisherState = { ...stateOf(record), status: to, rejectionReason: action === 'reject' ? reason : null };
      // A rejection revokes the key for good: after a new approval the owner generates a new one.
      if (to === 'rejected' && record.keyHash) Object.assign(next, withoutKey(record));
      const facts = { actorAccountId: caller.accountId, reason };
      const event = createEnvelope(`publisher.${ACTION_NAMES[action]}` as const, String(id), record.version + 1, { ...eventData(id, next), ...facts }, now);
      const revoking = to === 'paused' || to === 'rejected';
      let changed: PublisherRecord;
      try {
        if (revoking) await this.readModel.statusAhead(record, to);
        changed = await this.repository.change(record, next, { at: now, actorAccountId: caller.accountId, action: ACTION_NAMES[action], from: record.status, to, reason }, [
          event as PublisherEvent,
        ]);
      } catch (error) {
        if (revoking) await this.sync(id).catch((syncError: unknown) => this.repairLater(id, syncError));
        if (error instanceof ConcurrentChangeError && attempt < MAX_ATTEMPTS) continue;
        if (error instanceof ConcurrentChangeError) throw problems.conflict('concurrent_change', 'This platform was changed at the same time; reload it');
        throw error;
      }
      return this.view(await this.sync(id, changed));
    }
  }

  /** The owner of an approved platform gets a new key; the previous key stops working before this returns. */
  async rotateKey(caller: Principal, id: number): Promise<{ key: string; keyCreatedAt: string }> {
    for (let attempt = 1; ; attempt += 1) {
      const record = await this.visible(caller, id);
      if (record.ownerAccountId !== caller.accountId) throw problems.forbidden('owner_only', 'Only the owner of this platform may generate its key');
      if (record.status !== 'approved') throw problems.conflict('publisher_not_approved', 'A key can be generated only for an approved platform');
      const now = this.clock.now();
      const key = generateApiKey('live');
      const previous = record.keyHash ?? null;
      const next: PublisherState = {
        ...stateOf(record),
        keyHash: hashApiKey(key),
        keyCreatedAt: now,
        revokedKeyHashes: withoutKey(record).revokedKeyHashes,
      };
      const event = createEnvelope('publisher.key_rotated', String(id), record.version + 1, { ...eventData(id, next), actorAccountId: caller.accountId }, now);
      let changed: PublisherRecord;
      try {
        if (previous) await this.readModel.revokeKeyAhead(record);
        changed = await this.repository.change(
          record,
          next,
          { at: now, actorAccountId: caller.accountId, action: previous ? 'key_rotated' : 'key_generated', from: 'approved', to: 'approved' },
          [event],
        );
      } catch (error) {
        await this.sync(id).catch((syncError: unknown) => this.repairLater(id, syncError));
        if (error instanceof ConcurrentChangeError && attempt < MAX_ATTEMPTS) continue;
        if (error instanceof ConcurrentChangeError) throw problems.conflict('concurrent_change', 'This platform was changed at the same time; try again');
        throw error;
      }
      await this.answerOnlyWorkingKey(id, changed);
      return { key, keyCreatedAt: now.toISOString() };
    }
  }

  /**
   * The owner of a platform, whatever its status, gets a new sandbox test key (decision 0021); the previous
   * test key stops working before this returns, the live key is untouched. No event: nothing outside
   * this service reacts to a test key, and the key read model carries it to the readers.
   */
  async createTestKey(caller: Principal, id: number): Promise<{ key: string; keyCreatedAt: string }> {
    for (let attempt = 1; ; attempt += 1) {
      const record = await this.visible(caller, id);
      if (record.ownerAccountId !== caller.accountId) throw problems.forbidden('owner_only', 'Only the owner of this platform may generate its test key');
      const now = this.clock.now();
      const key = generateApiKey('test');
      const previous = record.testKeyHash ?? null;
      const next: PublisherState = { ...stateOf(record), ...withoutTestKey(record), testKeyHash: hashApiKey(key), testKeyCreatedAt: now };
      const facts = { at: now, actorAccountId: caller.accountId, action: previous ? 'test_key_rotated' : 'test_key_generated', from: record.status, to: record.status };
      const changed = await this.changeTestKey(record, next, facts, previous !== null, attempt);
      if (!changed) continue;
      await this.answerOnlyWorkingKey(id, changed, 'testKeyHash');
      return { key, keyCreatedAt: now.toISOString() };
    }
  }

  /** The owner revokes the platform's test key (nothing to do when it has none); the live key is untouched. */
  async revokeTestKey(caller: Principal, id: number): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      const record = await this.visible(caller, id);
      if (record.ownerAccountId !== caller.accountId) throw problems.forbidden('owner_only', 'Only the owner of this platform may revoke its test key');
      if (!record.testKeyHash) return;
      const now = this.clock.now();
      const next: PublisherState = { ...stateOf(record), ...withoutTestKey(record) };
      const facts = { at: now, actorAccountId: caller.accountId, action: 'test_key_revoked', from: record.status, to: record.status };
      const changed = await this.changeTestKey(record, next, facts, true, attempt);
      if (!changed) continue;
      await this.sync(id, changed);
      return;
    }
  }

  /**
   * Stores a test key change, the current test key revoked in the read model first when `revokeFirst`
   * (fail closed). Null when another change won and the caller should read the record again.
   */
  private async changeTestKey(
    record: PublisherRecord,
    next: PublisherState,
    facts: ChangeFacts,
    revokeFirst: boolean,
    attempt: number,
  ): Promise<PublisherRecord | null> {
    try {
      if (revokeFirst) await this.readModel.revokeTestKeyAhead(record);
      return await this.repository.change(record, next, facts, []);
    } catch (error) {
      if (revokeFirst) await this.sync(Number(record._id)).catch((syncError: unknown) => this.repairLater(Number(record._id), syncError));
      if (error instanceof ConcurrentChangeError && attempt < MAX_ATTEMPTS) return null;
      if (error instanceof ConcurrentChangeError) throw problems.conflict('concurrent_change', 'This platform was changed at the same time; try again');
      throw error;
    }
  }

  /**
   * The key generation answer is sent only once the new key works (API.md): its read model write must
   * have applied. If a newer version was there, the record changed at the same time (a pause, another
   * rotation): the newest state is written and, unless it still holds this key, the caller hears 409.
   */
  private async answerOnlyWorkingKey(id: number, changed: PublisherRecord, which: 'keyHash' | 'testKeyHash' = 'keyHash'): Promise<void> {
    if (await this.readModel.write(changed)) return;
    const latest = await this.sync(id);
    if (latest[which] !== changed[which] || (which === 'keyHash' && latest.status !== 'approved')) {
      throw problems.conflict('concurrent_change', 'This platform was changed at the same time; generate the key again');
    }
  }

  /**
   * Writes a record's database state to the read model. The write is versioned, so of two writes racing
   * (a slow request, a rebuild, another replica) the newer version always stays.
   */
  async sync(id: number, known?: PublisherRecord): Promise<PublisherRecord> {
    const record = known ?? (await this.repository.load(id));
    if (!record) throw new Error(`publisher ${id} vanished`);
    await this.readModel.write(record);
    return record;
  }

  /**
   * Rewrites the whole read model from the database (at start: Redis may have lost it or hold another
   * database's entries; then as repair), then sweeps out what the database does not hold. A change
   * interrupted before its projection was written shows once the outbox relay rolls it forward.
   */
  async rebuildReadModel(): Promise<number> {
    let count = 0;
    for await (const batch of this.repository.batches()) {
      for (const record of batch) await this.readModel.write(record);
      count += batch.length;
    }
    await this.readModel.sweep();
    return count;
  }

  private repairLater(id: number, error: unknown): void {
    this.logger.warn({ publisherId: id, err: (error as Error)?.message }, 'key read model not rewritten; the periodic repair will');
  }

  /** The record when the caller may see it (owner or administrator); anyone else gets 404. */
  private async visible(caller: Principal, id: number): Promise<PublisherRecord> {
    return this.visibleOf(caller, await this.repository.load(id));
  }

  private visibleOf(caller: Principal, record: PublisherRecord | null): PublisherRecord {
    if (!record || (!caller.admin && record.ownerAccountId !== caller.accountId)) {
      throw problems.notFound('publisher_not_found', 'No such publisher platform');
    }
    return record;
  }
}
