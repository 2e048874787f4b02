import { busSettings, ConfigError, httpSettings, loadConfig as load, makeValidator, mongoSettings, num, outboxSettings, parseIdList, redisSettings, str, url } from '@pilot/platform';

/** The secret the messaging platform sends in X-Telegram-Bot-Api-Secret-Token: 1-256 of A-Z a-z 0-9 _ -. */
const webhookSecret = makeValidator<string>((raw) => {
  if (!/^[A-Za-z0-9_-]{16,256}$/.test(raw)) throw new Error('must be 16 to 256 characters of A-Z, a-z, 0-9, _ and -');
  return raw;
});

/** Comma-separated numeric account ids (may be empty). */
const accountIdList = makeValidator<string>((raw) => {
  const ids = raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
  for (const id of ids) if (!/^[0-9]{1,20}$/.test(id)) throw new Error(`"${id}" is not a numeric account id`);
  return ids.join(',');
});

const botUsername = makeValidator<string>((raw) => {
  if (!/^[A-Za-z][A-Za-z0-9_]{3,31}$/.test(raw)) throw new Error('is not a bot username');
  return raw;
});

/**
 * Every setting of publisher-identity, declared once; a missing or invalid one stops the process naming it.
 * Development defaults apply only outside NODE_ENV=production.
 */
export const configSpec = {
  ...httpSettings,
  ...mongoSettings,
  ...busSettings,
  ...redisSettings,
  PUBLIC_BASE_URL: url({ devDefault: 'http://127.0.0.1:8080', desc: 'origin of the site; cookies are Secure when it is https' }),
  ADMIN_ACCOUNT_IDS: accountIdList({ default: '', desc: 'comma-separated numeric account ids with administrator rights' }),
  TELEGRAM_BOT_USERNAME: botUsername({ default: 'pilot_signin_bot', desc: 'the sign-in bot, used to build botUrl' }),
  TELEGRAM_WEBHOOK_SECRET: webhookSecret({
    devDefault: 'local-only-telegram-webhook-secret',
    desc: 'value the messaging platform sends in X-Telegram-Bot-Api-Secret-Token',
  }),
  SESSION_COOKIE: str({ default: 'pilot_session', desc: 'name of the workspace session cookie (the gateway reads the same name; __Host- prefixed when PUBLIC_BASE_URL is https)' }),
  SESSION_TTL_HOURS: num({ default: 168, desc: 'a workspace session ends this many hours after sign-in' }),
  LOGIN_LIMIT_POINTS: num({ default: 10, desc: 'login requests one client address may create per window' }),
  LOGIN_LIMIT_WINDOW_SECONDS: num({ default: 60, desc: 'length of the login request limit window, in seconds' }),
  KEY_ROTATION_LIMIT_POINTS: num({ default: 60, desc: 'keys and test keys one account may generate per window (revoking is never limited)' }),
  KEY_ROTATION_LIMIT_WINDOW_SECONDS: num({ default: 3600, desc: 'length of the key generation limit window, in seconds' }),
  ...outboxSettings,
  READ_MODEL_REPAIR_INTERVAL_MS: num({
    default: 60_000,
    desc: 'how often the Redis key read model is rewritten from the database (0: only at start)',
  }),
  RETENTION_SWEEP_INTERVAL_MS: num({
    default: 600_000,
    desc: 'how often expired login requests, code uses, session issues, webhook updates, sessions and outbox leases are deleted (0: only at start)',
  }),
};

export type Config = ReturnType<typeof loadConfig>;

/** What the deployment examples put where the sign-in bot's name goes (deploy/, compose.env.example). */
const PLACEHOLDER_BOT = /change[-_]?me|placeholder|example/i;

/**
 * Under NODE_ENV=production, as placeholder secrets are: no administrator at all, the examples' account `1`
 * as the only one, or a placeholder bot name, each named in a ConfigError.
 */
function refusePlaceholders(config: { ADMIN_ACCOUNT_IDS: string; TELEGRAM_BOT_USERNAME: string }): void {
  const problems: Record<string, string> = {};
  const admins = [...parseIdList(config.ADMIN_ACCOUNT_IDS)];
  if (admins.length === 0) problems.ADMIN_ACCOUNT_IDS = 'is empty, refused in production (name the administrators\' account ids)';
  else if (admins.length === 1 && admins[0] === '1') problems.ADMIN_ACCOUNT_IDS = 'is the placeholder 1, refused in production (name the administrators\' account ids)';
  if (PLACEHOLDER_BOT.test(config.TELEGRAM_BOT_USERNAME)) problems.TELEGRAM_BOT_USERNAME = 'is a placeholder, refused in production (the sign-in bot\'s username, without @)';
  if (Object.keys(problems).length > 0) throw new ConfigError(problems);
}

export function loadConfig(env: NodeJS.ProcessEnv) {
  const config = load(configSpec, env);
  if (env.NODE_ENV === 'production') refusePlaceholders(config);
  return config;
}
