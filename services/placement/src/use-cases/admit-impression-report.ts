import { addressLimitKey, problems } from '@pilot/platform';
import type { PlacementDeps } from './deps';

/** The abuse limit on impression reports from `clientIp` (an IPv6 address's /64): 429 over it. Asked before the report is read. */
export async function admitImpressionReport(deps: Pick<PlacementDeps, 'impressionLimit'>, clientIp: string): Promise<void> {
  const decision = await deps.impressionLimit.consume(addressLimitKey(clientIp));
  if (!decision.allowed) throw problems.tooManyRequests(decision.retryAfterSeconds, 'Too many impression reports from this client');
}
