/**
 * Every setting of a process is declared once with envalid validators and read here, at start.
 * A missing or invalid setting throws a ConfigError naming each bad variable; the entry point prints it
 * and exits. `devDefault` values apply only outside NODE_ENV=production, so production never silently
 * falls back to a local default; and in production a `*_SECRET` setting that is short or a known
 * placeholder stops the process too (secrets.ts).
 */
import { cleanEnv, type CleanedEnv, type ValidatorSpec } from 'envalid';
import { makeValidator, num as numValidator, str as strValidator, url as urlValidator } from 'envalid';
import { isSecretSettingName, weakSecretProblem } from './secrets';

export { MIN_SECRET_LENGTH, isSecretSettingName, weakSecretProblem } from './secrets';


export { bool, host, num, port, str, url, json, makeValidator, EnvError, EnvMissingError } from 'envalid';
export type { CleanedEnv, CleanedEnvAccessors, ValidatorSpec, RequiredValidatorSpec, OptionalValidatorSpec, Spec as EnvalidSpec } from 'envalid';

export class ConfigError extends Error {
  constructor(readonly variables: Record<string, string>) {
    super(
      'Invalid configuration: ' +
        Object.entries(variables)
          .map(([name, problem]) => `${name} ${problem}`)
          .join('; '),
    );
    this.name = 'ConfigError';
  }
}

export type Spec = { [key: string]: ValidatorSpec<unknown> };

export function loadConfig<S extends Spec>(spec: S, env: NodeJS.ProcessEnv = process.env): CleanedEnv<S> {
  const config = cleanEnv(env, spec, {
    reporter: ({ errors }) => {
      const names = Object.keys(errors);
      if (names.length === 0) return;
      const problems: Record<string, string> = {};
      for (const name of names) {
        const error = errors[name];
        problems[name] =
          error && error.name === 'EnvMissingError' ? 'is required but missing' : `is invalid (${error?.message ?? 'bad value'})`;
      }
      throw new ConfigError(problems);
    },
  });
  if (env.NODE_ENV === 'production') refuseWeakSecrets(spec, config as Record<string, unknown>);
  if ('REDIS_SENTINELS' in spec && 'REDIS_SENTINEL_NAME' in spec) refuseHalfSentinelSettings(config as Record<string, unknown>);
  return config;
}

/** Under NODE_ENV=production: every secret setting strong enough, else a ConfigError naming each weak one. */
function refuseWeakSecrets(spec: Spec, config: Record<string, unknown>): void {
  const devDefaults = new Set(Object.values(spec).map((validator) => validator.devDefault));
  const problems: Record<string, string> = {};
  for (const name of Object.keys(spec).filter(isSecretSettingName)) {
    const problem = weakSecretProblem(config[name], devDefaults);
    if (problem) problems[name] = problem;
  }
  if (Object.keys(problems).length > 0) throw new ConfigError(problems);
}

/** A comma-separated list of positive integers as strings, e.g. numeric account ids. */
export function parseIdList(raw: string): Set<string> {
  return new Set(
    raw
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item.length > 0),
  );
}

/** The one source of time; tests inject a clock they can move. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };


/**
 * Settings every service shares, declared once. `devDefault` values are for local runs only; under
 * NODE_ENV=production every one of them must be set.
 */
/** A TCP port to listen on; unlike envalid's port(), 0 (any free port, used by tests) is allowed. */
export const listenPort = makeValidator<number>((raw) => {
  const value = Number(raw);
  if (!/^[0-9]{1,5}$/.test(raw.trim()) || value > 65535) throw new Error(`"${raw}" is not a port (0-65535)`);
  return value;
});

export const httpSettings = {
  PORT: listenPort({ desc: 'port this service listens on (0: any free port)' }),
  HOST: strValidator({ default: '127.0.0.1', desc: 'address to listen on (0.0.0.0 in containers)' }),
  INTERNAL_SECRET: strValidator({
    devDefault: 'local-only-internal-secret-0123456789',
    desc: 'HMAC secret the gateway signs forwarded calls with (production: at least 32 characters, not a placeholder)',
  }),
  LOG_LEVEL: strValidator({ default: 'info', choices: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] }),
};

export const mongoSettings = {
  MONGO_URL: urlValidator({ devDefault: 'mongodb://127.0.0.1:27017/', desc: 'MongoDB (or FerretDB) server' }),
  MONGO_DB: strValidator({ desc: "this service's own database name" }),
};

export const busSettings = {
  AMQP_URL: urlValidator({ devDefault: 'amqp://guest:guest@127.0.0.1:5672', desc: 'RabbitMQ' }),
  BUS_EXCHANGE: strValidator({ default: 'pilot.events', desc: 'the durable topic exchange; also the prefix of durable queues' }),
  BUS_PUBLISH_TIMEOUT_MS: numValidator({ default: 800, desc: 'how long to wait for a broker confirm' }),
};

/** The outbox relay of services that publish events from their own writes. */
export const outboxSettings = {
  OUTBOX_RELAY_INTERVAL_MS: numValidator({ default: 10_000, desc: 'how often the outbox relay looks for changes their writers left unfinished (a failed pass is retried after 1 s regardless)' }),
  OUTBOX_LEASE_MS: numValidator({
    default: 30_000,
    desc: 'how long a relay holds a record whose leftover changes it finishes; after it another replica may take it over (the holder died)',
  }),
  OUTBOX_PENDING_GRACE_MS: numValidator({
    default: 5_000,
    desc: 'a change unfinished this long is a leftover the outbox relay finishes (its writer takes milliseconds)',
  }),
};

/** The counting pipeline (docs/counting.md): every service that counts. */
export const countSettings = {
  COUNT_INTERVAL_MS: numValidator({ default: 60_000, desc: 'counts gather this long in Redis before they can be folded into MongoDB (longer: fewer updates)' }),
};

/** The counting pipeline of services that own totals and fold them. */
export const countingSettings = {
  ...countSettings,
  COUNT_FOLD_INTERVAL_MS: numValidator({ default: 1000, desc: 'how often counts are moved from Redis into the MongoDB totals (0: never, tests fold by hand)' }),
};

/** `host:port,host:port`: Redis Sentinels (an empty value: none). */
const sentinelList = makeValidator<Array<{ host: string; port: number }>>((raw) => {
  if (raw.trim() === '') return [];
  return raw.split(',').map((entry) => {
    const match = /^([A-Za-z0-9.-]+|\[[0-9a-fA-F:]+\]):([0-9]{1,5})$/.exec(entry.trim());
    const port = Number(match?.[2]);
    if (!match || port < 1 || port > 65_535) throw new Error(`"${entry}" is not host:port`);
    return { host: match[1]!.replace(/^\[|\]$/g, ''), port };
  });
});

export const redisSettings = {
  REDIS_URL: urlValidator({ devDefault: 'redis://127.0.0.1:6379', desc: 'Redis (with REDIS_SENTINELS: its credentials and database only)' }),
  REDIS_SENTINELS: sentinelList({ default: [], desc: 'host:port,... of the Redis Sentinels that name the primary (automatic failover); empty: REDIS_URL alone' }),
  REDIS_SENTINEL_NAME: strValidator({ default: '', desc: 'the primary group the sentinels monitor (required with REDIS_SENTINELS)' }),
  REDIS_KEY_PREFIX: strValidator({ default: 'pilot:', desc: 'prefix of every Redis key of this deployment' }),
};

/** Where Redis is: its URL, or, with Sentinel, the sentinels that name the current primary of `sentinelName`. */
export interface RedisTarget {
  /** The URL; with sentinels, only its credentials and database number are used. */
  url: string;
  sentinels?: Array<{ host: string; port: number }>;
  sentinelName?: string;
}

/** The Redis of a process's settings (redisSettings), directly or through its sentinels. */
export function redisTargetOf(config: { REDIS_URL: string; REDIS_SENTINELS: Array<{ host: string; port: number }>; REDIS_SENTINEL_NAME: string }): RedisTarget {
  if (config.REDIS_SENTINELS.length === 0) return { url: config.REDIS_URL };
  return { url: config.REDIS_URL, sentinels: config.REDIS_SENTINELS, sentinelName: config.REDIS_SENTINEL_NAME };
}

/** REDIS_SENTINELS and REDIS_SENTINEL_NAME go together: one without the other is a ConfigError at start. */
function refuseHalfSentinelSettings(config: Record<string, unknown>): void {
  const sentinels = config.REDIS_SENTINELS as unknown[];
  const name = config.REDIS_SENTINEL_NAME as string;
  if (sentinels.length > 0 && name === '') throw new ConfigError({ REDIS_SENTINEL_NAME: 'is required with REDIS_SENTINELS' });
  if (sentinels.length === 0 && name !== '') throw new ConfigError({ REDIS_SENTINELS: 'is required with REDIS_SENTINEL_NAME' });
}
