/**
 * What the deployment tests share: the services of services/, the settings each one declares in its
 * src/config.ts (read at test time, so a setting added tomorrow is checked tomorrow), and a check that
 * an environment starts a service's configuration under NODE_ENV=production.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** Loads TypeScript sources through the tsx hook mocha runs with (a dynamic import() would bypass it). */
const load = createRequire(__filename);

export const REPO_ROOT = path.resolve(__dirname, '..', '..');

/** Every service folder under services/ (one with a package.json). */
export function serviceNames(): string[] {
  const dir = path.join(REPO_ROOT, 'services');
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && fs.existsSync(path.join(dir, entry.name, 'package.json')))
    .map((entry) => entry.name)
    .sort();
}

/** An envalid validator spec as declared in a configSpec: only the fields that decide if it is required. */
interface SettingSpec {
  default?: unknown;
  devDefault?: unknown;
}

export interface ServiceConfig {
  service: string;
  spec: Record<string, SettingSpec>;
  loadConfig(env: NodeJS.ProcessEnv): unknown;
}

/** Reads services/<svc>/src/config.ts: its `configSpec` and its `loadConfig`. */
export async function serviceConfig(service: string): Promise<ServiceConfig> {
  await Promise.resolve();
  const file = path.join(REPO_ROOT, 'services', service, 'src', 'config.ts');
  if (!fs.existsSync(file)) throw new Error(`services/${service}/src/config.ts does not exist`);
  const module = load(file) as { configSpec?: Record<string, SettingSpec>; loadConfig?: (env: NodeJS.ProcessEnv) => unknown };
  if (!module.configSpec || typeof module.configSpec !== 'object') throw new Error(`services/${service}/src/config.ts exports no configSpec`);
  if (typeof module.loadConfig !== 'function') throw new Error(`services/${service}/src/config.ts exports no loadConfig`);
  return { service, spec: module.configSpec, loadConfig: module.loadConfig };
}

/**
 * The settings a deployment must provide: those without a `default`. A `devDefault` applies only outside
 * NODE_ENV=production, so a setting that has only a devDefault is required in production.
 */
export function requiredSettings(config: ServiceConfig): string[] {
  return Object.entries(config.spec)
    .filter(([, spec]) => !Object.prototype.hasOwnProperty.call(spec, 'default'))
    .map(([name]) => name)
    .sort();
}

/** The required settings `env` lacks (an empty string counts as missing). */
export function missingSettings(config: ServiceConfig, env: Record<string, string | undefined>): string[] {
  return requiredSettings(config).filter((name) => env[name] === undefined || env[name] === '');
}

/**
 * Loads the service's configuration from `env` exactly as the process would in production; returns the
 * error message when it refuses (a missing or invalid setting), or undefined when it starts.
 */
export function productionConfigProblem(config: ServiceConfig, env: Record<string, string | undefined>): string | undefined {
  if (env.NODE_ENV !== 'production') return `NODE_ENV is ${JSON.stringify(env.NODE_ENV)}, not "production"`;
  try {
    config.loadConfig({ ...env });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** The port a service listens on, by its own settings: GATEWAY_PORT for the gateway, PORT otherwise. */
export function listenPortOf(config: ServiceConfig, env: Record<string, string | undefined>): number {
  const name = 'GATEWAY_PORT' in config.spec ? 'GATEWAY_PORT' : 'PORT';
  return Number(env[name]);
}

/** Values for placeholders of secrets that a deployment leaves to the operator, long enough for any check. */
export function sampleSecret(name: string): string {
  return `${name.toLowerCase().replace(/_/g, '-')}-sample-0123456789abcdef0123456789abcdef`;
}

/** KEY=value lines of an env file (comments and blank lines skipped). */
export function readEnvFile(file: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const at = trimmed.indexOf('=');
    if (at > 0) values[trimmed.slice(0, at)] = trimmed.slice(at + 1);
  }
  return values;
}
