import { busSettings, httpSettings, loadConfig as load, makeValidator, mongoSettings, outboxSettings, url } from '@pilot/platform';

/** A database name: required, and an empty value counts as missing rather than "the driver's default". */
const databaseName = makeValidator<string>((raw) => {
  if (!/^[A-Za-z0-9_-]{1,63}$/.test(raw)) throw new Error('must be 1 to 63 letters, digits, _ or -');
  return raw;
});

/** Every setting of the campaign service, declared once. A missing or invalid one stops the process naming it. */
export const configSpec = {
  ...httpSettings,
  PUBLIC_BASE_URL: url({ devDefault: 'http://127.0.0.1:8080', desc: "origin of the site; every problem's type is its /guide/errors page" }),
  ...mongoSettings,
  MONGO_DB: databaseName({ desc: "this service's own database name" }),
  ...busSettings,
  ...outboxSettings,
};

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(env: NodeJS.ProcessEnv) {
  return load(configSpec, env);
}
