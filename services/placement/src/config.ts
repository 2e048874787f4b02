import { busSettings, countingSettings, httpSettings, loadConfig as load, mongoSettings, num, outboxSettings, redisSettings, url } from '@pilot/platform';

/** Every setting of the placement service, declared once; a missing or invalid one stops the process naming it. */
export const configSpec = {
  ...httpSettings,
  PUBLIC_BASE_URL: url({ devDefault: 'http://127.0.0.1:8080', desc: "origin of the site; every problem's type is its /guide/errors page" }),
  ...mongoSettings,
  ...busSettings,
  ...redisSettings,
  IMPRESSION_LIMIT_POINTS: num({ default: 60, desc: 'impression reports one client address may send per window' }),
  IMPRESSION_LIMIT_WINDOW_SECONDS: num({ default: 60, desc: 'length of the impression limit window, in seconds' }),
  ...outboxSettings,
  ...countingSettings,
  DEPENDENCY_TIMEOUT_MS: num({ default: 2000, desc: 'a MongoDB or Redis call of the impression counts slower than this answers 503' }),
};

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(env: NodeJS.ProcessEnv) {
  return load(configSpec, env);
}
