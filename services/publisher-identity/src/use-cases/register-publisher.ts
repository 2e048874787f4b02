import { problems, type Principal } from '@pilot/platform';
import type { NewPublisherInput, PublisherState, PublisherView } from '../domain/publisher';
import type { IdentityDeps } from './deps';
import { publisherView } from './publisher-changes';

/** Platforms one account may hold (API.md: the 101st is 409 publisher_limit). */
export const MAX_PUBLISHERS_PER_ACCOUNT = 100;
/** A create under way holds its slot for milliseconds; an older claim without its record was leaked. */
const SLOT_CLAIM_GRACE_MS = 60_000;

/** A new draft platform of the caller, under a free slot of theirs: the 101st is 409 publisher_limit. */
export async function registerPublisher(deps: IdentityDeps, caller: Principal, input: NewPublisherInput): Promise<PublisherView> {
  const now = deps.clock.now();
  const slot = await claimSlot(deps, caller.accountId, now);
  if (slot === null) throw problems.conflict('publisher_limit', `An account may hold at most ${MAX_PUBLISHERS_PER_ACCOUNT} platforms`);
  let id: number | null = null;
  try {
    id = await deps.publishers.nextId(caller.accountId, now);
    const state: PublisherState = {
      ownerAccountId: caller.accountId,
      type: input.type,
      link: input.link,
      status: 'draft',
      keyHash: null,
      keyCreatedAt: null,
      revokedKeyHashes: [],
      rejectionReason: null,
      pauseReason: null,
      testKeyHash: null,
      testKeyCreatedAt: null,
      statusChangedAt: now,
    };
    const record = await deps.publishers.create(id, state, { at: now, actorAccountId: caller.accountId, action: 'created', from: null, to: 'draft' });
    return publisherView(deps, record);
  } catch (error) {
    await releaseUnusedSlot(deps, caller.accountId, slot, id);
    throw error;
  }
}

/**
 * A free slot of the account; none when it holds the maximum already (platforms made before slots
 * existed included). When all slots are taken but not all by platforms, the claims that no create holds
 * any more (a process that died between claim and record) are given back and the claim tried again.
 */
async function claimSlot(deps: IdentityDeps, accountId: string, now: Date): Promise<number | null> {
  const owned = await deps.publishers.countOwned(accountId);
  if (owned >= MAX_PUBLISHERS_PER_ACCOUNT) return null;
  const slot = await deps.publishers.slots.claim(accountId, MAX_PUBLISHERS_PER_ACCOUNT, now);
  if (slot !== null) return slot;
  const released = await deps.publishers.slots.releaseLeaked(accountId, owned, new Date(now.getTime() - SLOT_CLAIM_GRACE_MS));
  return released > 0 ? deps.publishers.slots.claim(accountId, MAX_PUBLISHERS_PER_ACCOUNT, now) : null;
}

/** A create that failed gives its slot back unless its record was written after all. */
async function releaseUnusedSlot(deps: IdentityDeps, accountId: string, slot: number, id: number | null): Promise<void> {
  try {
    if (id !== null && (await deps.publishers.load(id))) return;
    await deps.publishers.slots.release(accountId, slot);
  } catch (error) {
    deps.logger.warn({ err: (error as Error).message, accountId, slot }, 'platform slot not released; the next create past the limit will');
  }
}
