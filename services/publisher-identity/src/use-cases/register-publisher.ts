import { problems, type Principal } from '@pilot/platform';
import type { NewPublisherInput, PublisherState, PublisherView } from '../domain/publisher';
import type { IdentityDeps } from './deps';
import { publisherView } from './publisher-changes';

/** Platforms one account may hold (API.md: the 101st is 409 publisher_limit). */
export const MAX_PUBLISHERS_PER_ACCOUNT = 100;
/** A create under way holds its count for milliseconds; a count without its record after this long was leaked. */
const LEAKED_COUNT_GRACE_MS = 60_000;

/** A new draft platform of the caller, within the count of theirs: the 101st is 409 publisher_limit. */
export async function registerPublisher(deps: IdentityDeps, caller: Principal, input: NewPublisherInput): Promise<PublisherView> {
  const now = deps.clock.now();
  const leakedBefore = new Date(now.getTime() - LEAKED_COUNT_GRACE_MS);
  if (!(await deps.publishers.counts.take(caller.accountId, MAX_PUBLISHERS_PER_ACCOUNT, now, leakedBefore))) throw problems.conflict('publisher_limit', `An account may hold at most ${MAX_PUBLISHERS_PER_ACCOUNT} platforms`);
  let id: number | null = null;
  try {
    id = await deps.publishers.nextId();
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
    await giveBackUnusedCount(deps, caller.accountId, id);
    throw error;
  }
}

/** A create that failed gives its count back unless its record was written after all. */
async function giveBackUnusedCount(deps: IdentityDeps, accountId: string, id: number | null): Promise<void> {
  try {
    if (id !== null && (await deps.publishers.load(id))) return;
    await deps.publishers.counts.giveBack(accountId);
  } catch (error) {
    deps.logger.warn({ err: (error as Error).message, accountId }, 'platform count not given back; the next create past the limit will');
  }
}
