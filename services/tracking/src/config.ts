import { busSettings, ConfigError, countingSettings, httpSettings, listenPort, loadConfig as load, mongoSettings, num, redisSettings, str, url, weakSecretProblem } from '@pilot/platform';

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
  TOKEN_SECRET_PREVIOUS: str({
    default: '',
    desc: 'the TOKEN_SECRET before a rotation, accepted for the tokens\' lifetime (an hour) after it; empty: none (docs/operations.md)',
  }),
  PUBLIC_BASE_URL: url({ devDefault: 'http://127.0.0.1:8080', desc: 'origin of the site; a test ad\'s click redirects to its sandbox page' }),
  CAMPAIGN_URL: url({ devDefault: 'http://127.0.0.1:8102', desc: 'campaign service, for the snapshot of active campaigns' }),
  DEPENDENCY_TIMEOUT_MS: num({ default: 2000, desc: 'a MongoDB or Redis call slower than this answers 503' }),
  ...countingSettings,
};

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(env: NodeJS.ProcessEnv) {
  const config = load(configSpec, env);
  // Optional, so not under the *_SECRET rule of @pilot/platform's config; held to it whenever it is set.
  const problem = env.NODE_ENV === 'production' && config.TOKEN_SECRET_PREVIOUS ? weakSecretProblem(config.TOKEN_SECRET_PREVIOUS) : null;
  if (problem) throw new ConfigError({ TOKEN_SECRET_PREVIOUS: problem });
  return config;
}
