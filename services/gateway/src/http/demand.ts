/**
 * GET /api/workspace/publishers/{id}/demand: what the network could serve a platform now. publisher-identity
 * owns the platform (who may see it, its type and owner); allocation holds the active campaigns as the ad
 * endpoint selects from them. The gateway asks the first with the caller's signed identity (its 404 stands
 * for anyone who may not see the platform), then the second's internal route for the platform's format and
 * owner, and answers what allocation counted: no service reads another's collections.
 */
import { type Principal, problems, ServiceUnavailableError } from '@pilot/platform';
import { signedGet } from './signed-get';
import type { Upstreams } from './upstreams';

interface PlatformFacts {
  type: 'bot' | 'channel';
  ownerAccountId: string;
}

export interface Demand {
  format: 'bot' | 'channel';
  activeCampaigns: number;
  languages: Array<{ language: string; activeCampaigns: number }>;
  noFillReason: string;
}

export async function composeDemand(upstreams: Upstreams, secret: string, principal: Principal, id: string, requestId: string): Promise<Demand> {
  if (!/^[1-9][0-9]{0,15}$/.test(id)) throw problems.notFound('publisher_not_found', 'No such publisher platform');
  const platform = await signedGet(upstreams, 'identity', secret, `/api/workspace/publishers/${id}`, principal, requestId);
  if (platform.status === 404) throw problems.notFound('publisher_not_found', 'No such publisher platform');
  if (!platform.ok) throw new ServiceUnavailableError('identity', `the platform answered ${platform.status}`);
  const { type, ownerAccountId } = (await platform.json()) as PlatformFacts;
  const params = new URLSearchParams({ format: type, excludedOwnerAccountId: ownerAccountId });
  const counted = await signedGet(upstreams, 'allocation', secret, `/internal/demand?${params.toString()}`, principal, requestId);
  if (!counted.ok) throw new ServiceUnavailableError('allocation', `the demand answered ${counted.status}`);
  return (await counted.json()) as Demand;
}
