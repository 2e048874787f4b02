import { busSettings, ConfigError, httpSettings, listenPort, loadConfig as load, makeValidator, mongoSettings, num, redisSettings, url } from '@pilot/platform';

/** Comma-separated numeric account ids (may be empty). */
const accountIdList = makeValidator<string[]>((raw) => {
  const ids = raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
  for (const id of ids) if (!/^[0-9]{1,20}$/.test(id)) throw new Error(`"${id}" is not a numeric account id`);
  return ids;
});

/** A Bot API token as the platform issues it (`<bot id>:<secret>`), or empty: nothing is sent. */
const botToken = makeValidator<string>((raw) => {
  const token = raw.trim();
  if (token !== '' && !/^[0-9]{1,20}:[A-Za-z0-9_-]{10,}$/.test(token)) throw new Error('is not a bot token (<bot id>:<secret>)');
  return token;
});

/**
 * Every setting of the notification service, declared once. A missing or invalid one stops the process
 * naming it (devDefaults apply to local runs only, never under NODE_ENV=production).
 */
export const configSpec = {
  ...httpSettings,
  PORT: listenPort({ devDefault: 8107, desc: 'port the notification service listens on (0: any free port)' }),
  ...mongoSettings,
  ...busSettings,
  ...redisSettings,
  PUBLIC_BASE_URL: url({ devDefault: 'http://127.0.0.1:8080', desc: 'origin of the site, for the links to a record in a message' }),
  ADMIN_ACCOUNT_IDS: accountIdList({ default: [], desc: 'comma-separated numeric account ids with administrator rights (they get the review-queue summary)' }),
  IDENTITY_URL: url({ devDefault: 'http://127.0.0.1:8101', desc: 'publisher-identity, asked when an account that blocked the bot last signed in' }),
  TELEGRAM_BOT_TOKEN: botToken({ default: '', desc: "the sign-in bot's token, used to send notifications; unset: nothing is sent (said once at start)" }),
  TELEGRAM_API_BASE_URL: url({ default: 'https://api.telegram.org', desc: "the messaging platform's Bot API origin (a local stand-in in tests)" }),
  BOT_API_TIMEOUT_MS: num({ default: 10_000, desc: 'a sendMessage unanswered for this long is given up and tried again' }),
  BOT_SEND_LIMIT_PER_SECOND: num({ default: 30, desc: 'messages per second at most, over every replica (the platform allows about 30)' }),
  NOTIFICATION_LEASE_MS: num({
    default: 60_000,
    desc: 'a send claimed by a replica that then went silent this long is taken over by another (longer than BOT_API_TIMEOUT_MS)',
  }),
  NOTIFICATION_MAX_AGE_MS: num({
    default: 24 * 3600 * 1000,
    desc: 'a change older than this when its event arrives is not announced (events parked for days before the first rollout, a long outage)',
  }),
  QUEUE_SUMMARY_INTERVAL_MS: num({ default: 600_000, desc: 'at most one review-queue summary per administrator per this long' }),
  DEPENDENCY_TIMEOUT_MS: num({ default: 2000, desc: 'a MongoDB or Redis call slower than this answers 503' }),
  NOTIFICATION_PREFETCH: num({ default: 20, desc: 'events one replica handles at once' }),
};

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(env: NodeJS.ProcessEnv) {
  const config = load(configSpec, env);
  if (config.NOTIFICATION_LEASE_MS <= config.BOT_API_TIMEOUT_MS) {
    throw new ConfigError({ NOTIFICATION_LEASE_MS: `is invalid (must be longer than BOT_API_TIMEOUT_MS, ${config.BOT_API_TIMEOUT_MS})` });
  }
  return config;
}
