import { httpSettings, listenPort, loadConfig as load, str, url } from '@pilot/platform';

export const configSpec = {
  ...httpSettings,
  PUBLIC_BASE_URL: url({ devDefault: 'http://127.0.0.1:8080', desc: "origin of the site; every problem's type is its /guide/errors page" }),
  PORT: listenPort({ devDefault: 8106 }),
  WEB_ROOT: str({ default: '', desc: 'folder of the built site (vite build); empty: dist/site of this package' }),
};

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(env: NodeJS.ProcessEnv) {
  return load(configSpec, env);
}
