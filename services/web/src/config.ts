import { httpSettings, listenPort, loadConfig as load, str } from '@pilot/config';

export const configSpec = {
  ...httpSettings,
  PORT: listenPort({ devDefault: 8106 }),
  WEB_ROOT: str({ default: '', desc: 'folder of the built site (vite build); empty: dist/site of this package' }),
};

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(env: NodeJS.ProcessEnv) {
  return load(configSpec, env);
}
