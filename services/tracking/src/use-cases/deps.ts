/** What tracking's use cases are given by start.ts: the stores, the caches, the secrets and the clock. */
import type { ActiveCampaignCache } from '@pilot/campaign-cache';
import type { CountRecorder, UnfoldedCounts } from '@pilot/counting';
import type { TotalsStore } from '@pilot/counting/totals';
import type { Clock, Logger } from '@pilot/platform';
import type { KeyReader } from '@pilot/publisher-keys';
import type { TokenSecrets } from '@pilot/tokens';
import type { CampaignTraitsSource } from './campaign-traits';

export interface TrackingDeps {
  counts: CountRecorder;
  totals: TotalsStore;
  unfolded: UnfoldedCounts;
  publishers: KeyReader;
  campaigns: ActiveCampaignCache;
  /** The language and format of any campaign, for the report (campaign-traits.ts). */
  campaignTraits: CampaignTraitsSource;
  /** TOKEN_SECRET and, during a rotation, TOKEN_SECRET_PREVIOUS. */
  tokenSecrets: TokenSecrets;
  /** PUBLIC_BASE_URL: a test ad's click leads to the site's sandbox page under it. */
  publicBaseUrl: string;
  clock: Clock;
  logger: Logger;
}
