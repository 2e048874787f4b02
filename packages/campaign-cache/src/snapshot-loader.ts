/**
 * The campaign service's snapshot of active campaigns (`GET /internal/campaigns/active`, signed), read at
 * start and after every reconnect to the broker; never per ad request or click. Items that do not match
 * the campaign state contract are dropped (and logged) rather than poisoning the cache.
 */
import { campaignStateSchema, compile, type CampaignState } from '@pilot/contracts';
import { internalGet, type Logger } from '@pilot/platform';

const baseSchema = campaignStateSchema as { required: string[]; properties: Record<string, unknown> };
// A tolerant reader: fields added to the snapshot later are ignored, missing or mistyped ones drop the item.
const validateItem = compile<CachedCampaign>({
  ...campaignStateSchema,
  additionalProperties: true,
  required: [...baseSchema.required, 'version'],
  properties: { ...baseSchema.properties, version: { type: 'integer', minimum: 1 } },
});

/** A campaign as the cache keeps it: its state and the version it has reached. */
export interface CachedCampaign extends CampaignState {
  version: number;
}

export const SNAPSHOT_PATH = '/internal/campaigns/active';

export function campaignSnapshotLoader(options: { secret: string; campaignUrl: string; timeoutMs?: number; logger: Logger }) {
  return async (): Promise<CachedCampaign[]> => {
    const answer = await internalGet<{ items?: unknown }>(options.secret, options.campaignUrl, SNAPSHOT_PATH, options.timeoutMs);
    if (!answer || !Array.isArray(answer.items)) throw new Error(`${SNAPSHOT_PATH} answered without an items array`);
    const campaigns: CachedCampaign[] = [];
    for (const item of answer.items) {
      if (validateItem(item)) campaigns.push(item);
      else options.logger.warn({ errors: validateItem.errors }, 'snapshot item dropped: not a campaign state');
    }
    return campaigns;
  };
}
