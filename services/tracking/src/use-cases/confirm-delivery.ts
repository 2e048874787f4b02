import type { KeyKind } from '@pilot/publisher-keys';
import { isTestAllocation, readToken } from '@pilot/tokens';
import { countedOf } from '../domain/counted';
import { judgeDeliveryToken } from '../domain/delivery';
import type { TrackingDeps } from './deps';

export type ConfirmResult = { ok: true; firstConfirmation: boolean; test: boolean } | { ok: false; code: 'token_not_found' | 'token_expired' };

/**
 * Confirms the delivery of the allocation a (well-formed) delivery token names, once. The key's kind
 * must match the allocation's: a test key confirms only test allocations, which answer as
 * live ones but are never counted, and a live key only live ones; anything else is token_not_found.
 */
export async function confirmDelivery(deps: TrackingDeps, publisherId: number, keyKind: KeyKind, token: string): Promise<ConfirmResult> {
  const now = deps.clock.now();
  const verdict = judgeDeliveryToken(readToken(deps.tokenSecrets, 'delivery', token), publisherId, now);
  if (!verdict.ok) return verdict;
  const test = isTestAllocation(verdict.claims);
  if (test !== (keyKind === 'test')) return { ok: false, code: 'token_not_found' };
  const firstConfirmation = test
    ? await deps.counts.firstTestFact('confirmedDeliveries', verdict.claims.allocationId, verdict.claims.issuedAt, now)
    : await deps.counts.countOnce('confirmedDeliveries', verdict.claims.allocationId, countedOf(verdict.claims), now);
  return { ok: true, firstConfirmation, test };
}
