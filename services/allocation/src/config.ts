import { busSettings, countSettings, httpSettings, listenPort, loadConfig as load, num, redisSettings, str, url } from '@pilot/platform';

/**
 * Every setting of allocation, declared once. A missing or invalid one stops the process naming it
 * (devDefaults apply to local runs only, never under NODE_ENV=production). Allocation has no database:
 * the hot path reads Redis (key read model, rate limit) and its in-memory campaign index only.
 */
export const configSpec = {
  ...httpSettings,
  PORT: listenPort({ devDefault: 8103, desc: 'port allocation listens on (0: any free port)' }),
  ...busSettings,
  ...redisSettings,
  TOKEN_SECRET: str({ desc: 'HMAC secret shared with tracking for delivery and click tokens' }),
  PUBLIC_BASE_URL: url({ devDefault: 'http://127.0.0.1:8080', desc: 'origin of the site; click links are absolute under it' }),
  CAMPAIGN_URL: url({ devDefault: 'http://127.0.0.1:8102', desc: 'campaign service, for the snapshot of active campaigns' }),
  DEPENDENCY_TIMEOUT_MS: num({ default: 1000, desc: 'a Redis call slower than this answers 503' }),
  ...countSettings,
  SNAPSHOT_TIMEOUT_MS: num({ default: 5000, desc: 'deadline of one snapshot request to the campaign service' }),
};

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(env: NodeJS.ProcessEnv) {
  return load(configSpec, env);
}
