import { busSettings, countingSettings, httpSettings, listenPort, loadConfig as load, mongoSettings, num, redisSettings, str, url } from '@pilot/config';

/**
 * Every setting of tracking, declared once. A missing or invalid one stops the process naming it
 * (devDefaults apply to local runs only, never under NODE_ENV=production).
 */
export const configSpec = {
  ...httpSettings,
  PORT: listenPort({ devDefault: 8104, desc: 'port tracking listens on (0: any free port)' }),
  ...mongoSettings,
  ...busSettings,
  ...redisSettings,
  TOKEN_SECRET: str({ desc: 'HMAC secret shared with allocation for delivery and click tokens' }),
  PUBLIC_BASE_URL: url({ devDefault: 'http://127.0.0.1:8080', desc: 'origin of the site; a test ad\'s click redirects to its sandbox page' }),
  CAMPAIGN_URL: url({ devDefault: 'http://127.0.0.1:8102', desc: 'campaign service, for the snapshot of active campaigns' }),
  DEPENDENCY_TIMEOUT_MS: num({ default: 2000, desc: 'a MongoDB or Redis call slower than this answers 503' }),
  ...countingSettings,
};

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(env: NodeJS.ProcessEnv) {
  return load(configSpec, env);
}
