import { problems, type Principal } from '@pilot/platform';
import { MAX_CAMPAIGNS_PER_ACCOUNT, newDraft } from '../domain/campaign';
import { validateCreative, type CreativeInput, type FieldProblem } from '../domain/validation';
import type { CampaignDeps } from './deps';
import { viewOf, type CampaignView } from './stored-campaign';

/** A create holds its count for milliseconds; a count without its record after this long was left by a dead process. */
const LEAKED_COUNT_GRACE_MS = 10 * 60 * 1000;

/**
 * Creates a draft of the caller's: the creative validated (and `replaces` one of its campaigns), a count
 * taken within the account's limit, an id, then the record with its `created` audit entry (no event).
 */
export async function createCampaign(deps: CampaignDeps, caller: Principal, body: unknown): Promise<CampaignView> {
  const validated = validateCreative(body);
  const errors: FieldProblem[] = validated.ok ? [] : [...validated.errors];
  const replaces = validated.ok ? validated.value.replaces : null;
  if (replaces !== null) {
    const replaced = await deps.repository.load(replaces);
    if (!replaced || replaced.ownerAccountId !== caller.accountId) {
      errors.push({ field: 'replaces', code: 'unknown_campaign', message: 'replaces must be the id of one of your campaigns' });
    }
  }
  if (!validated.ok || errors.length > 0) throw problems.validation(errors);
  return storeDraft(deps, caller, validated.value, 'created');
}

/**
 * Stores a new draft of the caller's from creative inputs already checked: a slot claimed within the
 * account's limit (409 `campaign_limit` past it), an id, then the record with its audit entry (`action`).
 */
export async function storeDraft(deps: CampaignDeps, caller: Principal, input: CreativeInput, action: 'created' | 'duplicated'): Promise<CampaignView> {
  const at = deps.clock.now();
  const leakedBefore = new Date(at.getTime() - LEAKED_COUNT_GRACE_MS);
  if (!(await deps.repository.takeRecordCount(caller.accountId, MAX_CAMPAIGNS_PER_ACCOUNT, at, leakedBefore))) {
    throw problems.conflict('campaign_limit', `An account may hold at most ${MAX_CAMPAIGNS_PER_ACCOUNT} campaign records`);
  }
  let campaignId: number | null = null;
  try {
    campaignId = await deps.repository.nextId();
    const record = newDraft(campaignId, caller.accountId, input);
    const stored = await deps.repository.create(record, {
      at,
      actorAccountId: caller.accountId,
      action,
      from: null,
      to: 'draft',
      reason: null,
    });
    return viewOf(stored);
  } catch (error) {
    await giveBackUnusedCount(deps, caller.accountId, campaignId, error);
    throw error;
  }
}

/**
 * A create that failed gives its count back unless its record was written after all (the failure came
 * after the insert). When even that cannot be told, a create at the cap gives it back later.
 */
async function giveBackUnusedCount(deps: CampaignDeps, accountId: string, campaignId: number | null, cause: unknown): Promise<void> {
  try {
    if (campaignId !== null && (await deps.repository.load(campaignId))) return;
    await deps.repository.giveBackRecordCount(accountId);
  } catch (error) {
    deps.logger.warn({ err: (error as Error).message, cause: (cause as Error).message, accountId }, 'campaign count not given back; a create at the cap will');
  }
}
